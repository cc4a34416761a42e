package contacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"reflect"
	"testing"

	"calq/internal/sqltime"
)

// TestPhones: a contact holds an address, a number or both; Add changes
// the one it is given and keeps the other; Set replaces both.
func TestPhones(t *testing.T) {
	ctx := context.Background()
	b := openBook(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), newClock()))
	must(t, b.Add(ctx, "bob", "bob@example.com"))
	must(t, b.Add(ctx, "bob", "+49 151 2345-678"))
	must(t, b.Add(ctx, "山田", "090-1234-5678"))
	must(t, b.Set(ctx, Contact{Name: "ann", Address: "Ann <ann@example.com>", Phone: "(0151) 999 00"}))
	checkContacts(t, b, []Contact{
		{Name: "ann", Address: "ann@example.com", Phone: "015199900", Added: t0},
		{Name: "bob", Address: "bob@example.com", Phone: "+491512345678", Added: t0},
		{Name: "山田", Phone: "09012345678", Added: t0},
	})
	must(t, b.Set(ctx, Contact{Name: "bob", Phone: "+491510000"}))
	if c, err := b.Get(ctx, "bob"); err != nil || c.Address != "" || c.Phone != "+491510000" {
		t.Errorf("Get(bob) after Set with a number only = %+v, %v; want no address and +491510000", c, err)
	}

	refused := []struct {
		name  string
		c     Contact
		field string
		err   string
	}{
		{"neither", Contact{Name: "x"}, "address", `set contact: address "" is empty, and so is the phone number: give one or both`},
		{"bad number", Contact{Name: "x", Phone: "+49 CALL"}, "phone", `set contact: phone "+49 CALL" is not a phone number: 'C' is not a digit`},
		{"number as address", Contact{Name: "x", Address: "+4915112345"}, "address", `set contact: address "+4915112345" is not an email address (mail: missing '@' or angle-addr)`},
		{"bad name", Contact{Name: "a@b", Phone: "4711"}, "name", `set contact: name "a@b" contains '@' or ','`},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := b.Set(ctx, tt.c)
			var ce *ContactError
			if !errors.As(err, &ce) || ce.Field != tt.field || err.Error() != tt.err {
				t.Errorf("Set(%+v) = %v; want a *ContactError on %s: %s", tt.c, err, tt.field, tt.err)
			}
		})
	}
	if _, err := b.Get(ctx, "x"); !errors.Is(err, ErrNoContact) {
		t.Errorf("a refused Set left contact x: %v", err)
	}
}

func TestResolvePhones(t *testing.T) {
	ctx := context.Background()
	b := openBook(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), newClock()))
	must(t, b.Set(ctx, Contact{Name: "bob", Address: "bob@example.com", Phone: "+491512345678"}))
	must(t, b.Add(ctx, "mum", "0151 11 22 33"))
	must(t, b.Add(ctx, "boss", "boss@example.com"))
	must(t, b.Add(ctx, "112", "boss@example.com")) // a name that reads as a number
	tests := []resolveCase{
		{"none", nil, nil, ""},
		{"names and numbers in order", []string{"mum", "+44 20 7946 0000", "bob"}, []string{"0151112233", "+442079460000", "+491512345678"}, ""},
		{"spaces trimmed", []string{" mum "}, []string{"0151112233"}, ""},
		{"repeats dropped", []string{"bob", "+49 151 2345678", "bob"}, []string{"+491512345678"}, ""},
		{"a number is a number", []string{"112"}, []string{"112"}, ""},
		{"unknown names", []string{"mum", "carol", "dave"}, nil, `resolve phone numbers: no such contact: "carol", "dave"`},
		{"names are case-sensitive", []string{"Mum"}, nil, `resolve phone numbers: no such contact: "Mum"`},
		{"contact without a number", []string{"boss"}, nil, `resolve phone numbers: contact "boss" has no phone number, only an email address`},
		{"bad number and unknown", []string{"+49 CALL", "eve"}, nil, "resolve phone numbers: " +
			`recipient "+49 CALL" is not a phone number: 'C' is not a digit` + "\n" + `no such contact: "eve"`},
	}
	checkResolve(t, "ResolvePhones", b.ResolvePhones, tests)
	// Owners reads each user's book: alice's mum is not the local one.
	alice := b.Owner("alice")
	must(t, alice.Add(ctx, "mum", "+33 6 12 34 56 78"))
	if got, err := (Owners{Book: b}).ResolvePhones(ctx, "alice", []string{"mum"}); err != nil || !reflect.DeepEqual(got, []string{"+33612345678"}) {
		t.Errorf("Owners.ResolvePhones(alice, mum) = %q, %v; want [+33612345678]", got, err)
	}
	if _, err := (Owners{Book: b}).ResolvePhones(ctx, "carol", []string{"mum"}); !errors.Is(err, ErrNoContact) {
		t.Errorf("Owners.ResolvePhones(carol, mum) = %v; want ErrNoContact", err)
	}
}

// TestResolveRecipientsPhoneOnly: a contact with a number only is no
// mail recipient, and the error says why.
func TestResolveRecipientsPhoneOnly(t *testing.T) {
	ctx := context.Background()
	b := openBook(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), newClock()))
	must(t, b.Add(ctx, "mum", "0151 11 22 33"))
	_, err := b.ResolveRecipients(ctx, []string{"mum"})
	if want := `resolve recipients: contact "mum" has no email address, only a phone number`; errString(err) != want {
		t.Errorf("ResolveRecipients(mum) = %v; want %s", err, want)
	}
}

// TestPhonesMigration opens a journal whose contacts table is version 2:
// version 3 keeps every contact, with no number.
func TestPhonesMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "calq.db")
	jn := openJournal(t, path, newClock())
	must(t, jn.Migrate(ctx, "contacts", []string{contactsSchema, ownersSchema}))
	must(t, jn.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO contacts (owner, name, address, added) VALUES
			('', 'boss', 'boss@example.com', ?1), ('alice', 'team', 'team@example.org', ?1)`, sqltime.Text(t0))
		return err
	}))
	must(t, jn.Close())

	local := openBook(t, openJournal(t, path, newClock()))
	checkContacts(t, local, []Contact{{Name: "boss", Address: "boss@example.com", Added: t0}})
	checkContacts(t, local.Owner("alice"), []Contact{{Name: "team", Address: "team@example.org", Added: t0}})
	must(t, local.Owner("alice").Add(ctx, "team", "+1 555 0100"))
	checkContacts(t, local.Owner("alice"), []Contact{{Name: "team", Address: "team@example.org", Phone: "+15550100", Added: t0}})
}

// Phone numbers in the address book, and SMS recipients that mix names
// and numbers.
func ExampleBook_ResolvePhones() {
	b, done := exampleBook()
	defer done()
	ctx := context.Background()
	if err := b.Set(ctx, Contact{Name: "mum", Address: "mum@example.com", Phone: "+49 151 2345-678"}); err != nil {
		log.Fatal(err)
	}
	if err := b.Add(ctx, "boss", "boss@example.com"); err != nil {
		log.Fatal(err)
	}
	to, err := b.ResolvePhones(ctx, []string{"mum", "(030) 123 456"})
	fmt.Println(to, err)
	_, err = b.ResolvePhones(ctx, []string{"boss", "bob"})
	fmt.Println(err)
	// Output:
	// [+491512345678 030123456] <nil>
	// resolve phone numbers: contact "boss" has no phone number, only an email address
	// no such contact: "bob"
}
