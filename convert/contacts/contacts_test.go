package contacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"calq/internal/sqltime"
	"calq/internal/testclock"
	"calq/sched"
	"calq/sched/journal"
)

func TestContacts(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	j := openBook(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), c))
	if cs, err := j.List(ctx); err != nil || len(cs) != 0 {
		t.Fatalf("Contacts() of a new journal = %v, %v, want none", cs, err)
	}
	must(t, j.Add(ctx, "bob", "Bob Builder <bob@example.com>"))
	must(t, j.Add(ctx, "Alice Liddell", "alice@example.com"))
	c.Set(t0.Add(time.Hour))
	must(t, j.Add(ctx, "bob", "robert@example.org")) // re-adding changes it
	want := []Contact{
		{Name: "Alice Liddell", Address: "alice@example.com", Added: t0},
		{Name: "bob", Address: "robert@example.org", Added: t0.Add(time.Hour)},
	}
	checkContacts(t, j, want)

	must(t, j.Remove(ctx, "bob"))
	checkContacts(t, j, want[:1])
	if err := j.Remove(ctx, "bob"); !errors.Is(err, ErrNoContact) ||
		err.Error() != `remove contact "bob": no such contact` {
		t.Errorf("RemoveContact(missing) error = %v, want ErrNoContact", err)
	}
}

func checkContacts(t *testing.T, j *Book, want []Contact) {
	t.Helper()
	got, err := j.List(context.Background())
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Contacts() = %v, %v, want %v", got, err, want)
	}
}

func TestCheckContact(t *testing.T) {
	tests := []struct {
		name, cname, address, field, want, err string
	}{
		{"bare", "ops", "ops@example.com", "address", "ops@example.com", ""},
		{"display name", "ops", `"Ops, Team" <ops@example.com>`, "address", "ops@example.com", ""},
		{"spaces and unicode", "Zoë Ops", "zoe@example.com", "address", "zoe@example.com", ""},
		{"CJK name", "山田 太郎", "yamada@example.jp", "address", "yamada@example.jp", ""},
		{"phone", "ops", "+49 151 2345-678", "phone", "+491512345678", ""},
		{"national phone", "ops", "(0151) 234.56.78", "phone", "01512345678", ""},
		{"empty name", "", "a@example.com", "", "", `name "" is empty`},
		{"spaces around", " ops", "a@example.com", "", "", `name " ops" begins or ends with a space`},
		{"at sign", "ops@example.com", "ops@example.com", "", "", `name "ops@example.com" contains '@' or ','`},
		{"comma", "a,b", "a@example.com", "", "", `name "a,b" contains '@' or ','`},
		{"control", "a\tb", "a@example.com", "", "", `name "a\tb" contains a control character`},
		{"latin-1", "Jos\xe9", "a@example.com", "", "", `name "Jos\xe9" is not UTF-8 text`},
		{"no at", "ops", "ops", "", "", `address "ops" is not an email address or a phone number`},
		{"bad number", "ops", "+49 151 CALL-ME", "", "", `phone "+49 151 CALL-ME" is not a phone number: 'C' is not a digit`},
		{"short number", "ops", "12", "", "", `phone "12" is not a phone number: 2 digits, want 3 to 20`},
		{"two addresses", "ops", "a@example.com, b@example.com", "", "",
			`address "a@example.com, b@example.com" is not an email address (mail: expected single address, got ", b@example.com")`},
		{"bad address", "ops", "x@", "", "", `address "x@" is not an email address (mail: missing '@' or angle-addr)`},
		{"empty address", "ops", "", "", "", `address "" is not an email address or a phone number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			field, got, err := CheckContact(tt.cname, tt.address)
			if field != tt.field || got != tt.want || errString(err) != tt.err {
				t.Errorf("CheckContact(%q, %q) = %q, %q, %v, want %q, %q, %q", tt.cname, tt.address, field, got, err, tt.field, tt.want, tt.err)
			}
			var ce *ContactError
			if err != nil && !errors.As(err, &ce) {
				t.Errorf("error %v is not a *ContactError", err)
			}
		})
	}
}

func TestAddContactInvalid(t *testing.T) {
	ctx := context.Background()
	j := openBook(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), newClock()))
	err := j.Add(ctx, "ops", "nobody")
	var ce *ContactError
	if !errors.As(err, &ce) || ce.Field != "address" {
		t.Errorf("AddContact(bad address) error = %v, want a *ContactError on the address", err)
	}
	checkContacts(t, j, nil)
}

func TestResolveRecipients(t *testing.T) {
	ctx := context.Background()
	j := openBook(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), newClock()))
	must(t, j.Add(ctx, "boss", "boss@example.com"))
	must(t, j.Add(ctx, "audit team", "audit@example.org"))
	tests := []resolveCase{
		{"none", nil, nil, ""},
		{"names", []string{"boss", "audit team"}, []string{"boss@example.com", "audit@example.org"}, ""},
		{"addresses kept in order", []string{"z@example.com", "boss", "Ann <ann@example.com>"},
			[]string{"z@example.com", "boss@example.com", "ann@example.com"}, ""},
		{"spaces trimmed", []string{" boss "}, []string{"boss@example.com"}, ""},
		{"repeats dropped", []string{"boss", "boss@example.com", "boss"}, []string{"boss@example.com"}, ""},
		{"unknown names", []string{"boss", "bob", "carol"}, nil, `resolve recipients: no such contact: "bob", "carol"`},
		{"names are case-sensitive", []string{"Boss"}, nil, `resolve recipients: no such contact: "Boss"`},
		{"bad address and unknown", []string{"x@", "eve"}, nil, "resolve recipients: " +
			`recipient "x@" is not an email address (mail: missing '@' or angle-addr)` + "\n" + `no such contact: "eve"`},
	}
	checkResolve(t, "ResolveRecipients", j.ResolveRecipients, tests)
}

// resolveCase is a list of recipients and what a resolver makes of it.
type resolveCase struct {
	name string
	list []string
	want []string
	err  string
}

// checkResolve runs resolve, named name, on each case, and on an
// unknown name, which must be ErrNoContact.
func checkResolve(t *testing.T, name string, resolve func(context.Context, []string) ([]string, error), tests []resolveCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolve(context.Background(), tt.list)
			if !reflect.DeepEqual(got, tt.want) || errString(err) != tt.err {
				t.Errorf("%s(%q) = %q, %v, want %q, %q", name, tt.list, got, err, tt.want, tt.err)
			}
		})
	}
	if _, err := resolve(context.Background(), []string{"nobody"}); !errors.Is(err, ErrNoContact) {
		t.Errorf("%s(unknown) error = %v, want ErrNoContact", name, err)
	}
}

// TestContactsUpgrade opens a journal made before the contacts table
// existed: Open adds it, and the jobs stay.
func TestContactsUpgrade(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "calq.db")
	c := newClock()
	old := openJournal(t, path, c)
	_, err := old.Enqueue(ctx, []*sched.Job{{Key: "old#1/1", Kind: "k"}})
	must(t, err)
	must(t, old.Close())

	jn := openJournal(t, path, c)
	j := openBook(t, jn)
	must(t, j.Add(ctx, "ops", "ops@example.com"))
	recs, err := jn.List(ctx, journal.Filter{})
	if err != nil || len(recs) != 1 {
		t.Errorf("List() after upgrade = %d jobs, %v, want 1", len(recs), err)
	}
	checkContacts(t, j, []Contact{{Name: "ops", Address: "ops@example.com", Added: t0}})
}

// TestContactsConcurrent adds contacts from many goroutines and two
// Journals on one file, as two processes would, while reading them.
func TestContactsConcurrent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "calq.db")
	c := newClock()
	a, b := openBook(t, openJournal(t, path, c)), openBook(t, openJournal(t, path, c))
	var wg sync.WaitGroup
	for i := range 16 {
		j := []*Book{a, b}[i%2]
		wg.Go(func() {
			if err := j.Add(ctx, fmt.Sprintf("c%02d", i), fmt.Sprintf("c%d@example.com", i)); err != nil {
				t.Error(err)
			}
			if _, err := j.List(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, j := range []*Book{a, b} {
		cs, err := j.List(ctx)
		if err != nil || len(cs) != 16 || cs[0].Name != "c00" || cs[15].Address != "c15@example.com" {
			t.Errorf("Contacts() = %v, %v, want c00..c15", cs, err)
		}
	}
}

func TestContactsClosed(t *testing.T) {
	jn := openJournal(t, filepath.Join(t.TempDir(), "calq.db"), newClock())
	j := openBook(t, jn)
	must(t, jn.Close())
	if err := j.Add(context.Background(), "ops", "ops@example.com"); !errors.Is(err, journal.ErrClosed) {
		t.Errorf("AddContact() on a closed journal error = %v, want ErrClosed", err)
	}
}

// The address book behind calq contacts, and recipients that mix names
// and addresses.
func ExampleBook_ResolveRecipients() {
	j, done := exampleBook()
	defer done()
	ctx := context.Background()

	if err := j.Add(ctx, "boss", "Big Boss <boss@example.com>"); err != nil {
		log.Fatal(err)
	}
	to, err := j.ResolveRecipients(ctx, []string{"boss", "audit@example.org"})
	fmt.Println(to, err)
	_, err = j.ResolveRecipients(ctx, []string{"bob"})
	fmt.Println(err)
	// Output:
	// [boss@example.com audit@example.org] <nil>
	// resolve recipients: no such contact: "bob"
}

// exampleBook opens the local book of a new journal in a temporary
// directory; done closes it and removes the directory.
func exampleBook() (b *Book, done func()) {
	dir, err := os.MkdirTemp("", "journal")
	if err != nil {
		log.Fatal(err)
	}
	jn, err := journal.Open(context.Background(), filepath.Join(dir, "calq.db"), journal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if b, err = Open(context.Background(), jn); err != nil {
		log.Fatal(err)
	}
	return b, func() { jn.Close(); os.RemoveAll(dir) }
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// clock is an injected Now that tests move by hand.
type clock = testclock.Clock

func newClock() *clock { return testclock.New(t0) }

func openJournal(t testing.TB, path string, c *clock) *journal.Journal {
	t.Helper()
	j, err := journal.Open(context.Background(), path, journal.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func openBook(t testing.TB, jn *journal.Journal) *Book {
	t.Helper()
	b, err := Open(context.Background(), jn)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestOwners keeps the same names in the local book and two users'
// books: each book sees, resolves, changes and clears its own only.
func TestOwners(t *testing.T) {
	ctx := context.Background()
	local := openBook(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), newClock()))
	alice, bob := local.Owner("alice"), local.Owner("bob")
	must(t, local.Add(ctx, "boss", "local@example.com"))
	must(t, alice.Add(ctx, "boss", "alice-boss@example.com"))
	must(t, alice.Add(ctx, "team", "team@example.com"))
	must(t, bob.Add(ctx, "boss", "bob-boss@example.com"))

	checkContacts(t, local, []Contact{{Name: "boss", Address: "local@example.com", Added: t0}})
	checkContacts(t, alice, []Contact{{Name: "boss", Address: "alice-boss@example.com", Added: t0}, {Name: "team", Address: "team@example.com", Added: t0}})
	checkContacts(t, bob, []Contact{{Name: "boss", Address: "bob-boss@example.com", Added: t0}})
	checkContacts(t, local.Owner("carol"), nil)
	if b := alice.Owner(""); b.owner != "" {
		t.Errorf("alice.Owner(\"\") is the book of %q, want the local book", b.owner)
	}

	resolves := []struct {
		book *Book
		list []string
		want []string
		err  string
	}{
		{local, []string{"boss"}, []string{"local@example.com"}, ""},
		{alice, []string{"boss", "team"}, []string{"alice-boss@example.com", "team@example.com"}, ""},
		{bob, []string{"boss"}, []string{"bob-boss@example.com"}, ""},
		{bob, []string{"team"}, nil, `resolve recipients: no such contact: "team"`},
		{local, []string{"team"}, nil, `resolve recipients: no such contact: "team"`},
		{local.Owner("carol"), []string{"boss"}, nil, `resolve recipients: no such contact: "boss"`},
	}
	for _, r := range resolves {
		got, err := r.book.ResolveRecipients(ctx, r.list)
		if !reflect.DeepEqual(got, r.want) || errString(err) != r.err {
			t.Errorf("book %q: ResolveRecipients(%q) = %q, %v, want %q, %q", r.book.owner, r.list, got, err, r.want, r.err)
		}
	}

	if c, err := alice.Get(ctx, "team"); err != nil || c != (Contact{Name: "team", Address: "team@example.com", Added: t0}) {
		t.Errorf("alice.Get(team) = %v, %v", c, err)
	}
	if _, err := bob.Get(ctx, "team"); !errors.Is(err, ErrNoContact) || err.Error() != `get contact "team": no such contact` {
		t.Errorf("bob.Get(team) error = %v, want ErrNoContact", err)
	}
	if err := bob.Remove(ctx, "team"); !errors.Is(err, ErrNoContact) {
		t.Errorf("bob.Remove(alice's team) error = %v, want ErrNoContact", err)
	}
	must(t, bob.Remove(ctx, "boss"))
	checkContacts(t, bob, nil)
	checkContacts(t, local, []Contact{{Name: "boss", Address: "local@example.com", Added: t0}})
	checkContacts(t, alice, []Contact{{Name: "boss", Address: "alice-boss@example.com", Added: t0}, {Name: "team", Address: "team@example.com", Added: t0}})

	if n, err := alice.RemoveAll(ctx); n != 2 || err != nil {
		t.Errorf("alice.RemoveAll() = %d, %v, want 2", n, err)
	}
	checkContacts(t, alice, nil)
	checkContacts(t, local, []Contact{{Name: "boss", Address: "local@example.com", Added: t0}})
}

// TestOwnersMigration opens a journal whose contacts table is version 1,
// with contacts: version 2 keeps them all in the local book.
func TestOwnersMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "calq.db")
	jn := openJournal(t, path, newClock())
	must(t, jn.Migrate(ctx, "contacts", []string{contactsSchema}))
	must(t, jn.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO contacts (name, address, added) VALUES
			('boss', 'boss@example.com', ?1), ('audit team', 'audit@example.org', ?1)`, sqltime.Text(t0))
		return err
	}))
	must(t, jn.Close())

	local := openBook(t, openJournal(t, path, newClock()))
	want := []Contact{{Name: "audit team", Address: "audit@example.org", Added: t0}, {Name: "boss", Address: "boss@example.com", Added: t0}}
	checkContacts(t, local, want)
	checkContacts(t, local.Owner("alice"), nil)
	must(t, local.Owner("alice").Add(ctx, "boss", "mine@example.com"))
	checkContacts(t, local, want)
	if got, err := local.ResolveRecipients(ctx, []string{"boss"}); err != nil || !reflect.DeepEqual(got, []string{"boss@example.com"}) {
		t.Errorf("ResolveRecipients(boss) after the migration = %q, %v", got, err)
	}

	// Opening it again migrates nothing more and loses nothing.
	checkContacts(t, openBook(t, openJournal(t, path, newClock())), want)
}
