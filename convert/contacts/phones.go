package contacts

import (
	"context"
	"fmt"

	"calq/internal/phone"
)

// ResolvePhones turns a list of SMS recipients, each a phone number or a
// contact name, into normalized numbers (phone.Normalize), in order and
// without repeats. An entry that reads as a number is that number, even
// where a contact has it as a name; any other is a contact's name, whose
// phone number it stands for. Unknown names are an error naming them
// all, wrapping ErrNoContact; bad numbers, and contacts that hold only an
// e-mail address, are errors naming them.
func (b *Book) ResolvePhones(ctx context.Context, list []string) ([]string, error) {
	book, err := b.byName(ctx)
	if err != nil {
		return nil, fmt.Errorf("resolve phone numbers: %w", err)
	}
	out, err := resolveAll(list, func(r string) (string, error) { return resolvePhone(book, r) })
	if err != nil {
		return nil, fmt.Errorf("resolve phone numbers: %w", err)
	}
	return out, nil
}

func resolvePhone(book map[string]Contact, r string) (string, error) {
	n, nerr := phone.Normalize(r)
	if nerr == nil {
		return n, nil
	}
	c, ok := book[r]
	switch {
	case ok && c.Phone == "":
		return "", fmt.Errorf("contact %q has no phone number, only an email address", r)
	case ok:
		return c.Phone, nil
	case looksLikeNumber(r):
		return "", fmt.Errorf("recipient %w", nerr)
	}
	return "", ErrNoContact
}

// Owners resolves recipients in the book of any owner (a calq serve
// user's): it is the phone book of SMS over HTTP (smsapi.PhoneBook).
type Owners struct{ Book *Book }

// ResolvePhones resolves list in owner's book (see Book.ResolvePhones).
func (o Owners) ResolvePhones(ctx context.Context, owner string, list []string) ([]string, error) {
	return o.Book.Owner(owner).ResolvePhones(ctx, list)
}
