// Package contacts is the address book that calq convert --mail-to reads:
// short names for e-mail addresses, kept in a table of the journal's file
// (its own, created by its migrations), checked and resolved here.
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
	if err := db.Migrate(ctx, "contacts", []string{contactsSchema, ownersSchema}); err != nil {
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
	Field string // "name" or "address"
	Value string
	Err   error // what is wrong, as a predicate: "is empty"
}

func (e *ContactError) Error() string { return fmt.Sprintf("%s %q %v", e.Field, e.Value, e.Err) }
func (e *ContactError) Unwrap() error { return e.Err }

// Contact is an entry of the address book: a short name for an address.
type Contact struct {
	Name    string    `json:"name"`
	Address string    `json:"address"`
	Added   time.Time `json:"added"` // when it was added or last changed, UTC
}

// CheckContact checks a contact's name and address and returns the bare
// address ("Jo <jo@example.com>" gives "jo@example.com"). A name is not
// empty, has no '@' (which marks an address where names and addresses
// mix, as in ResolveRecipients), no ',' (which separates recipients in a
// list), no control characters and no surrounding spaces. Its errors are
// *ContactError.
func CheckContact(name, address string) (string, error) {
	if err := checkName(name); err != nil {
		return "", &ContactError{"name", name, err}
	}
	addr, err := parseAddress(address)
	if err != nil {
		return "", &ContactError{"address", address, err}
	}
	return addr, nil
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

// Add records address under name, replacing the address that name
// had. See CheckContact for the names and addresses it accepts.
func (b *Book) Add(ctx context.Context, name, address string) error {
	addr, err := CheckContact(name, address)
	if err != nil {
		return fmt.Errorf("add contact: %w", err)
	}
	added := sqltime.Text(b.now())
	err = b.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO contacts (owner, name, address, added) VALUES (?1, ?2, ?3, ?4)
			ON CONFLICT (owner, name) DO UPDATE SET address = ?3, added = ?4`, b.owner, name, addr, added)
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
	rows, err := b.db.Query(ctx, `SELECT name, address, added FROM contacts WHERE owner = ?`+and+` ORDER BY name`,
		append([]any{b.owner}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cs []Contact
	for rows.Next() {
		var c Contact
		var added sql.NullString
		if err := rows.Scan(&c.Name, &c.Address, &added); err != nil {
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
// ErrNoContact; bad addresses are errors naming them.
func (b *Book) ResolveRecipients(ctx context.Context, list []string) ([]string, error) {
	cs, err := b.query(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("resolve recipients: %w", err)
	}
	book := make(map[string]string, len(cs))
	for _, c := range cs {
		book[c.Name] = c.Address
	}
	var addrs, unknown []string
	var errs []error
	for _, r := range list {
		addr, err := resolve(book, r)
		switch {
		case errors.Is(err, ErrNoContact):
			unknown = append(unknown, fmt.Sprintf("%q", r))
		case err != nil:
			errs = append(errs, err)
		case !slices.Contains(addrs, addr):
			addrs = append(addrs, addr)
		}
	}
	if len(unknown) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s", ErrNoContact, strings.Join(unknown, ", ")))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("resolve recipients: %w", errors.Join(errs...))
	}
	return addrs, nil
}

func resolve(book map[string]string, r string) (string, error) {
	r = strings.TrimSpace(r)
	if !strings.Contains(r, "@") {
		if addr, ok := book[r]; ok {
			return addr, nil
		}
		return "", ErrNoContact
	}
	addr, err := parseAddress(r)
	if err != nil {
		return "", fmt.Errorf("recipient %q %w", r, err)
	}
	return addr, nil
}
