// Package contacts is the address book that calq convert --mail-to and
// SMS read: short names for an e-mail address, a phone number or both,
// kept in a table of the journal's file (its own, created by its
// migrations), checked and resolved here (ResolveRecipients for mail,
// ResolvePhones for SMS; each reads the owner's book once).
//
// The table holds several books, one per owner: the local book (owner
// ""), which calq contacts and calq convert --mail-to use, and one per
// user of calq serve. Open returns the local book; Book.Owner another.
package contacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"calq/internal/phone"
	"calq/internal/sqltime"
)

// contactsSchema is the address book of calq convert --mail-to: version 1
// of its migrations, as the journal created it before it moved here.
const contactsSchema = `
CREATE TABLE IF NOT EXISTS contacts (
	name    TEXT PRIMARY KEY,
	address TEXT NOT NULL, -- a bare address: user@host
	added   TEXT NOT NULL  -- when it was added or last changed
);
`

// ownersSchema, version 2, gives each contact an owner: "" for the local
// book (every contact of version 1), a calq serve user's name for theirs.
// SQLite cannot change a primary key in place: the table is rebuilt.
const ownersSchema = `
CREATE TABLE contacts_v2 (
	owner   TEXT NOT NULL DEFAULT '', -- "": the local book; else a calq serve user
	name    TEXT NOT NULL,
	address TEXT NOT NULL, -- a bare address: user@host
	added   TEXT NOT NULL, -- when it was added or last changed
	PRIMARY KEY (owner, name)
);
INSERT INTO contacts_v2 (owner, name, address, added) SELECT '', name, address, added FROM contacts;
DROP TABLE contacts;
ALTER TABLE contacts_v2 RENAME TO contacts;
`

// phonesSchema, version 3, gives each contact a phone number beside its
// address: a contact holds an address, a number or both ("" for none).
const phonesSchema = `
ALTER TABLE contacts ADD COLUMN phone TEXT NOT NULL DEFAULT ''; -- normalized (phone.Normalize); "" none
`

// DB is what Book needs of the journal (*journal.Journal has it).
type DB interface {
	Migrate(ctx context.Context, pkg string, migrations []string) error
	Write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Book is one owner's address book in the journal's file. It is safe for
// concurrent use.
type Book struct {
	db    DB
	now   func() time.Time
	owner string // "": the local book
}

// Open creates or upgrades the address books' table in db and returns
// the local book, the one calq contacts keeps.
func Open(ctx context.Context, db DB) (*Book, error) {
	if err := db.Migrate(ctx, "contacts", []string{contactsSchema, ownersSchema, phonesSchema}); err != nil {
		return nil, fmt.Errorf("open the address book: %w", err)
	}
	now := time.Now
	if c, ok := db.(interface{ Now() time.Time }); ok {
		now = c.Now // the journal's clock, so that tests can set it
	}
	return &Book{db: db, now: now}, nil
}

// Owner returns the book of owner, in the same table: "" is the local
// book, any other name a calq serve user's (the caller checks the name,
// with users.CheckName). Each of its methods sees and changes that
// owner's contacts only.
func (b *Book) Owner(owner string) *Book {
	o := *b
	o.owner = owner
	return &o
}

// ErrNoContact is returned for a contact name the journal does not hold.
var ErrNoContact = errors.New("no such contact")

// ContactError is a contact name or address that cannot be stored.
type ContactError struct {
	Field string // "name", "address" or "phone"
	Value string
	Err   error // what is wrong, as a predicate: "is empty"
}

func (e *ContactError) Error() string { return fmt.Sprintf("%s %q %v", e.Field, e.Value, e.Err) }
func (e *ContactError) Unwrap() error { return e.Err }

// Contact is an entry of the address book: a short name for an e-mail
// address, a phone number or both.
type Contact struct {
	Name    string    `json:"name"`
	Address string    `json:"address"`         // a bare e-mail address; "" none
	Phone   string    `json:"phone,omitempty"` // normalized (phone.Normalize); "" none
	Added   time.Time `json:"added"`           // when it was added or last changed, UTC
}

// CheckContact checks a contact's name and address and returns the
// address as the book keeps it, and its field: an entry with an '@' is
// an e-mail address, kept bare ("Jo <jo@example.com>" gives
// "jo@example.com", field "address"); any other a phone number, kept
// normalized ("+49 151 2345-678" gives "+491512345678", field "phone").
// A name is not empty, has no '@' (which marks an address where names
// and addresses mix, as in ResolveRecipients), no ',' (which separates
// recipients in a list), no control characters and no surrounding
// spaces. Its errors are *ContactError.
func CheckContact(name, address string) (field, value string, err error) {
	if err := checkName(name); err != nil {
		return "", "", &ContactError{"name", name, err}
	}
	return checkAddress(address)
}

// checkAddress reads an e-mail address or a phone number (see
// CheckContact).
func checkAddress(s string) (field, value string, err error) {
	if strings.Contains(s, "@") {
		addr, err := parseAddress(s)
		if err != nil {
			return "", "", &ContactError{"address", s, err}
		}
		return "address", addr, nil
	}
	n, err := phone.Normalize(s)
	switch {
	case err == nil:
		return "phone", n, nil
	case looksLikeNumber(s):
		return "", "", numberError(s, err)
	}
	return "", "", &ContactError{"address", s, errors.New("is not an email address or a phone number")}
}

// numberError is phone.Normalize's error err about s as a
// *ContactError, which names s itself.
func numberError(s string, err error) error {
	_, why, _ := strings.Cut(err.Error(), "is not a phone number: ")
	return &ContactError{"phone", s, fmt.Errorf("is not a phone number: %s", why)}
}

// looksLikeNumber says whether s was meant as a phone number: it begins
// with a digit or a '+' (after spaces and an opening parenthesis).
func looksLikeNumber(s string) bool {
	s = strings.TrimLeft(s, " (")
	return s != "" && (s[0] == '+' || s[0] >= '0' && s[0] <= '9')
}

// checkEntry checks a whole contact as Set takes it and returns it with
// its address bare and its number normalized.
func checkEntry(c Contact) (Contact, error) {
	if err := checkName(c.Name); err != nil {
		return c, &ContactError{"name", c.Name, err}
	}
	if c.Address == "" && c.Phone == "" {
		return c, &ContactError{"address", "", errors.New("is empty, and so is the phone number: give one or both")}
	}
	if c.Address != "" {
		addr, err := parseAddress(c.Address)
		if err != nil {
			return c, &ContactError{"address", c.Address, err}
		}
		c.Address = addr
	}
	if c.Phone != "" {
		n, err := phone.Normalize(c.Phone)
		if err != nil {
			return c, numberError(c.Phone, err)
		}
		c.Phone = n
	}
	return c, nil
}

// parseAddress returns the bare address in s.
func parseAddress(s string) (string, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return "", fmt.Errorf("is not an email address (%v)", err)
	}
	return a.Address, nil
}

func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("is empty")
	case strings.TrimSpace(name) != name:
		return errors.New("begins or ends with a space")
	case strings.ContainsAny(name, "@,"):
		return errors.New("contains '@' or ','")
	case strings.ContainsFunc(name, unicode.IsControl):
		return errors.New("contains a control character")
	case !utf8.ValidString(name):
		return errors.New("is not UTF-8 text")
	}
	return nil
}

// Add records address, an e-mail address or a phone number, under name:
// it replaces the address (or the number) name had and keeps the other.
// See CheckContact for the names and addresses it accepts.
func (b *Book) Add(ctx context.Context, name, address string) error {
	field, value, err := CheckContact(name, address)
	if err != nil {
		return fmt.Errorf("add contact: %w", err)
	}
	var c Contact
	if field == "phone" {
		c.Phone = value
	} else {
		c.Address = value
	}
	// field is one of two constants: never from the input.
	return b.write(ctx, name, c, `ON CONFLICT (owner, name) DO UPDATE SET `+field+` = excluded.`+field+`, added = excluded.added`)
}

// Set records c, replacing both the address and the phone number its
// name had; one of them may be "", not both.
func (b *Book) Set(ctx context.Context, c Contact) error {
	c, err := checkEntry(c)
	if err != nil {
		return fmt.Errorf("set contact: %w", err)
	}
	return b.write(ctx, c.Name, c, `ON CONFLICT (owner, name) DO UPDATE SET address = excluded.address,
		phone = excluded.phone, added = excluded.added`)
}

// write inserts contact c under name, or does conflict to the one there.
func (b *Book) write(ctx context.Context, name string, c Contact, conflict string) error {
	added := sqltime.Text(b.now())
	err := b.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO contacts (owner, name, address, phone, added) VALUES (?, ?, ?, ?, ?) `+conflict,
			b.owner, name, c.Address, c.Phone, added)
		return err
	})
	if err != nil {
		return fmt.Errorf("add contact %q: %w", name, err)
	}
	return nil
}

// Remove deletes the contact named name; ErrNoContact when there
// is none.
func (b *Book) Remove(ctx context.Context, name string) error {
	var n int64
	err := b.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM contacts WHERE owner = ? AND name = ?`, b.owner, name)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err == nil && n == 0 {
		err = ErrNoContact
	}
	if err != nil {
		return fmt.Errorf("remove contact %q: %w", name, err)
	}
	return nil
}

// RemoveAll deletes every contact of the book (a calq serve user's, when
// the user is removed) and returns how many there were.
func (b *Book) RemoveAll(ctx context.Context) (int64, error) {
	var n int64
	err := b.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM contacts WHERE owner = ?`, b.owner)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("remove the contacts of %q: %w", b.owner, err)
	}
	return n, nil
}

// Get returns the contact named name; ErrNoContact when there is none.
func (b *Book) Get(ctx context.Context, name string) (Contact, error) {
	cs, err := b.query(ctx, ` AND name = ?`, name)
	if err == nil && len(cs) == 0 {
		err = ErrNoContact
	}
	if err != nil {
		return Contact{}, fmt.Errorf("get contact %q: %w", name, err)
	}
	return cs[0], nil
}

// List returns the book's contacts sorted by name.
func (b *Book) List(ctx context.Context) ([]Contact, error) {
	cs, err := b.query(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list contacts: %w", err)
	}
	return cs, nil
}

// query returns the book's contacts that match the condition and, sorted
// by name: and is "" or " AND ..." with its arguments in args.
func (b *Book) query(ctx context.Context, and string, args ...any) ([]Contact, error) {
	rows, err := b.db.Query(ctx, `SELECT name, address, phone, added FROM contacts WHERE owner = ?`+and+` ORDER BY name`,
		append([]any{b.owner}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cs []Contact
	for rows.Next() {
		var c Contact
		var added sql.NullString
		if err := rows.Scan(&c.Name, &c.Address, &c.Phone, &added); err != nil {
			return nil, err
		}
		if c.Added, err = sqltime.Parse(added); err != nil {
			return nil, fmt.Errorf("contact %q: %w", c.Name, err)
		}
		cs = append(cs, c)
	}
	return cs, rows.Err()
}

// ResolveRecipients turns a list of recipients, each a contact name or an
// address (an entry with an '@'), into bare addresses, in order and
// without repeats. Unknown names are an error naming them all, wrapping
// ErrNoContact; bad addresses, and contacts that hold only a phone
// number, are errors naming them.
func (b *Book) ResolveRecipients(ctx context.Context, list []string) ([]string, error) {
	book, err := b.byName(ctx)
	if err != nil {
		return nil, fmt.Errorf("resolve recipients: %w", err)
	}
	out, err := resolveAll(list, func(r string) (string, error) { return resolveMail(book, r) })
	if err != nil {
		return nil, fmt.Errorf("resolve recipients: %w", err)
	}
	return out, nil
}

// byName is the book's contacts by name.
func (b *Book) byName(ctx context.Context) (map[string]Contact, error) {
	cs, err := b.query(ctx, "")
	if err != nil {
		return nil, err
	}
	book := make(map[string]Contact, len(cs))
	for _, c := range cs {
		book[c.Name] = c
	}
	return book, nil
}

// resolveAll resolves each entry of list with one, in order and without
// repeats; the entries one finds no contact for (ErrNoContact) are
// named together in one error, after the others' errors.
func resolveAll(list []string, one func(string) (string, error)) ([]string, error) {
	var out, unknown []string
	var errs []error
	for _, r := range list {
		v, err := one(strings.TrimSpace(r))
		switch {
		case errors.Is(err, ErrNoContact):
			unknown = append(unknown, fmt.Sprintf("%q", strings.TrimSpace(r)))
		case err != nil:
			errs = append(errs, err)
		case !slices.Contains(out, v):
			out = append(out, v)
		}
	}
	if len(unknown) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s", ErrNoContact, strings.Join(unknown, ", ")))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func resolveMail(book map[string]Contact, r string) (string, error) {
	if !strings.Contains(r, "@") {
		c, ok := book[r]
		switch {
		case !ok:
			return "", ErrNoContact
		case c.Address == "":
			return "", fmt.Errorf("contact %q has no email address, only a phone number", r)
		}
		return c.Address, nil
	}
	addr, err := parseAddress(r)
	if err != nil {
		return "", fmt.Errorf("recipient %q %w", r, err)
	}
	return addr, nil
}
