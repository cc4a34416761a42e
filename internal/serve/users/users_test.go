package users

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/testclock"
	"calq/sched/journal"
)

func TestCheckName(t *testing.T) {
	tests := []struct{ name, user, err string }{
		{"letters", "alice", ""},
		{"all kinds", "Ops.Team_2-x@example.com", ""},
		{"one char", "a", ""},
		{"64 chars", strings.Repeat("a", 64), ""},
		{"empty", "", `name "" is empty`},
		{"65 chars", strings.Repeat("a", 65), `name "` + strings.Repeat("a", 65) + `" is longer than 64 characters`},
		{"space", "al ice", `name "al ice" contains ' ': a name has only letters a-z and A-Z, digits and . _ - @`},
		{"colon", "a:b", `name "a:b" contains ':': a name has only letters a-z and A-Z, digits and . _ - @`},
		{"slash", "a/b", `name "a/b" contains '/': a name has only letters a-z and A-Z, digits and . _ - @`},
		{"not ascii", "zoë", `name "zoë" contains 'ë': a name has only letters a-z and A-Z, digits and . _ - @`},
		{"cyrillic a", "\u0430dmin", `name "аdmin" contains 'а': a name has only letters a-z and A-Z, digits and . _ - @`},
		{"control", "a\nb", `name "a\nb" contains '\n': a name has only letters a-z and A-Z, digits and . _ - @`},
		{"latin-1", "a\xe9", `name "a\xe9" contains '�': a name has only letters a-z and A-Z, digits and . _ - @`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckName(tt.user)
			if errString(err) != tt.err {
				t.Errorf("CheckName(%q) = %v, want %q", tt.user, err, tt.err)
			}
			var ne *NameError
			if err != nil && !errors.As(err, &ne) {
				t.Errorf("error %v is not a *NameError", err)
			}
		})
	}
}

func TestUsers(t *testing.T) {
	ctx := context.Background()
	c := testclock.New(t0)
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), c))
	if n, err := s.Count(ctx); n != 0 || err != nil {
		t.Fatalf("Count() of a new journal = %d, %v, want 0", n, err)
	}
	bob, err := s.Add(ctx, User{Name: "bob", Profile: "legal", Keys: 7})
	if want := (User{Name: "bob", Profile: "legal", Created: t0}); err != nil || bob != want {
		t.Errorf("Add(bob) = %+v, %v, want %+v", bob, err, want)
	}
	c.Set(t0.Add(time.Hour))
	_, err = s.Add(ctx, User{Name: "alice", Admin: true})
	must(t, err)
	checkUsers(t, s, []User{
		{Name: "alice", Admin: true, Created: t0.Add(time.Hour)},
		{Name: "bob", Profile: "legal", Created: t0},
	})

	must(t, s.SetAdmin(ctx, "bob", true))
	must(t, s.SetProfile(ctx, "bob", ""))
	must(t, s.SetAdmin(ctx, "alice", false))
	if got, err := s.Get(ctx, "bob"); err != nil || !got.Admin || got.Profile != "" {
		t.Errorf("Get(bob) after SetAdmin, SetProfile = %+v, %v, want an admin without profile", got, err)
	}
	must(t, s.Remove(ctx, "bob"))
	checkUsers(t, s, []User{{Name: "alice", Created: t0.Add(time.Hour)}})
	if n, err := s.Count(ctx); n != 1 || err != nil {
		t.Errorf("Count() = %d, %v, want 1", n, err)
	}
}

// TestUserErrors checks what is refused, and that a refusal changes
// nothing.
func TestUserErrors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
	_, err := s.Add(ctx, User{Name: "bob"})
	must(t, err)
	tests := []struct {
		name string
		op   func() error
		is   error
		msg  string
	}{
		{"add twice", func() error { _, err := s.Add(ctx, User{Name: "bob", Admin: true}); return err },
			ErrUserExists, `add user "bob": user already exists`},
		{"bad name", func() error { _, err := s.Add(ctx, User{Name: "b b"}); return err },
			nil, `add user: name "b b" contains ' ': a name has only letters a-z and A-Z, digits and . _ - @`},
		{"bad profile", func() error { _, err := s.Add(ctx, User{Name: "carol", Profile: "a\x00"}); return err },
			nil, `add user "carol": profile "a\x00" contains a control character`},
		{"get missing", func() error { _, err := s.Get(ctx, "carol"); return err }, ErrNoUser, `get user "carol": no such user`},
		{"remove missing", func() error { return s.Remove(ctx, "carol") }, ErrNoUser, `remove user "carol": no such user`},
		{"admin missing", func() error { return s.SetAdmin(ctx, "carol", true) }, ErrNoUser, `set admin of user "carol": no such user`},
		{"profile missing", func() error { return s.SetProfile(ctx, "carol", "p") }, ErrNoUser, `set profile of user "carol": no such user`},
		{"key missing", func() error { _, err := s.NewKey(ctx, "carol"); return err }, ErrNoUser, `new key for user "carol": no such user`},
		{"rotate missing", func() error { _, err := s.RotateKey(ctx, "carol"); return err }, ErrNoUser, `rotate key of user "carol": no such user`},
		{"revoke missing", func() error { _, err := s.RevokeKeys(ctx, "carol"); return err }, ErrNoUser, `revoke keys of user "carol": no such user`},
		{"keys missing", func() error { _, err := s.Keys(ctx, "carol"); return err }, ErrNoUser, `list keys of user "carol": no such user`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.op()
			if errString(err) != tt.msg || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("error = %v, want %q (%v)", err, tt.msg, tt.is)
			}
		})
	}
	checkUsers(t, s, []User{{Name: "bob", Created: t0}})
}

func TestKeys(t *testing.T) {
	ctx := context.Background()
	c := testclock.New(t0)
	jn := openJournal(t, filepath.Join(t.TempDir(), "calq.db"), c)
	s := openStore(t, jn)
	for _, name := range []string{"alice", "bob"} {
		_, err := s.Add(ctx, User{Name: name, Profile: name + "-profile"})
		must(t, err)
	}
	a1, err := s.NewKey(ctx, "alice")
	must(t, err)
	c.Set(t0.Add(time.Minute))
	a2, err := s.NewKey(ctx, "alice")
	must(t, err)
	b1, err := s.NewKey(ctx, "bob")
	must(t, err)
	if len(a1) != 48 || !strings.HasPrefix(a1, "calq_") || a1 == a2 {
		t.Errorf("NewKey() = %q, %q, want two different calq_ keys of 48 characters", a1, a2)
	}
	if ks, err := s.Keys(ctx, "alice"); err != nil || !reflect.DeepEqual(ks, []Key{{a1[:13], t0}, {a2[:13], t0.Add(time.Minute)}}) {
		t.Errorf("Keys(alice) = %v, %v, want the prefixes of %q and %q", ks, err, a1, a2)
	}

	checkAuth(t, s, map[string]string{a1: "alice", a2: "alice", b1: "bob"})
	if u, _ := s.Authenticate(ctx, a1); u != (User{Name: "alice", Profile: "alice-profile", Keys: 2, Created: t0}) {
		t.Errorf("Authenticate(alice's key) = %+v, want alice with her profile and 2 keys", u)
	}

	a3, err := s.RotateKey(ctx, "alice")
	must(t, err)
	checkAuth(t, s, map[string]string{a1: "", a2: "", a3: "alice", b1: "bob"})

	n, err := s.RevokeKeys(ctx, "alice")
	if n != 1 || err != nil {
		t.Errorf("RevokeKeys(alice) = %d, %v, want 1", n, err)
	}
	if ks, err := s.Keys(ctx, "alice"); len(ks) != 0 || err != nil {
		t.Errorf("Keys(alice) after RevokeKeys = %v, %v, want none", ks, err)
	}
	must(t, s.Remove(ctx, "bob"))
	_, err = s.Add(ctx, User{Name: "bob"}) // a new bob does not get the old one's keys
	must(t, err)
	checkAuth(t, s, map[string]string{a3: "", b1: ""})
}

// TestAuthenticateUnknown feeds Authenticate what is no key.
func TestAuthenticateUnknown(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
	_, err := s.Add(ctx, User{Name: "alice"})
	must(t, err)
	key, err := s.NewKey(ctx, "alice")
	must(t, err)
	flipped := []byte(key)
	flipped[20] ^= 1
	for name, k := range map[string]string{
		"empty":         "",
		"prefix only":   key[:13],
		"one bit":       string(flipped),
		"longer":        key + "x",
		"its hash":      hashKey(key),
		"other prefix":  "xxxx_" + key[5:],
		"spaces around": " " + key + " ",
	} {
		if u, err := s.Authenticate(ctx, k); err != ErrUnknownKey {
			t.Errorf("Authenticate(%s) = %+v, %v, want ErrUnknownKey", name, u, err)
		}
	}
}

// TestOnlyHashesStored reads the tables as they are on disk: no key is
// there, only its SHA-256 and its prefix.
func TestOnlyHashesStored(t *testing.T) {
	ctx := context.Background()
	jn := openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0))
	s := openStore(t, jn)
	_, err := s.Add(ctx, User{Name: "alice"})
	must(t, err)
	key, err := s.NewKey(ctx, "alice")
	must(t, err)
	dump := dumpRows(t, jn, `SELECT hash, user, prefix, created FROM user_keys`)
	want := []string{hashKey(key), "alice", key[:13], "2025-03-01 12:00:00.000000"}
	if !reflect.DeepEqual(dump, want) {
		t.Errorf("user_keys = %q, want %q", dump, want)
	}
	if secret := key[13:]; strings.Contains(strings.Join(dump, " "), secret) {
		t.Errorf("user_keys holds the key's secret part %q", secret)
	}
	if h := hashKey(key); len(h) != 64 || strings.Contains(h, key) {
		t.Errorf("hashKey(%q) = %q, want 64 hex digits", key, h)
	}
}

// TestConcurrent adds users and keys from goroutines and two Journals on
// one file, as two processes would, while authenticating.
func TestConcurrent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "calq.db")
	c := testclock.New(t0)
	a, b := openStore(t, openJournal(t, path, c)), openStore(t, openJournal(t, path, c))
	var wg sync.WaitGroup
	for i := range 16 {
		s := []*Store{a, b}[i%2]
		wg.Go(func() {
			name := fmt.Sprintf("u%02d", i)
			if _, err := s.Add(ctx, User{Name: name}); err != nil {
				t.Error(err)
				return
			}
			key, err := s.NewKey(ctx, name)
			if err != nil {
				t.Error(err)
				return
			}
			if u, err := []*Store{a, b}[(i+1)%2].Authenticate(ctx, key); err != nil || u.Name != name {
				t.Errorf("Authenticate(key of %s) = %+v, %v", name, u, err)
			}
		})
	}
	wg.Wait()
	if n, err := a.Count(ctx); n != 16 || err != nil {
		t.Errorf("Count() = %d, %v, want 16", n, err)
	}
}

func TestClosed(t *testing.T) {
	jn := openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0))
	s := openStore(t, jn)
	must(t, jn.Close())
	if _, err := s.Add(context.Background(), User{Name: "bob"}); !errors.Is(err, journal.ErrClosed) {
		t.Errorf("Add() on a closed journal error = %v, want ErrClosed", err)
	}
}

func checkUsers(t *testing.T, s *Store, want []User) {
	t.Helper()
	got, err := s.List(context.Background())
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("List() = %+v, %v, want %+v", got, err, want)
	}
}

// checkAuth checks whose each key is: "" for no one's.
func checkAuth(t *testing.T, s *Store, whose map[string]string) {
	t.Helper()
	for key, name := range whose {
		u, err := s.Authenticate(context.Background(), key)
		switch {
		case name == "" && !errors.Is(err, ErrUnknownKey):
			t.Errorf("Authenticate(%q) = %+v, %v, want ErrUnknownKey", key, u, err)
		case name != "" && (err != nil || u.Name != name):
			t.Errorf("Authenticate(%q) = %+v, %v, want %s", key, u, err, name)
		}
	}
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func openJournal(t testing.TB, path string, c *testclock.Clock) *journal.Journal {
	t.Helper()
	j, err := journal.Open(context.Background(), path, journal.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func openStore(t testing.TB, jn *journal.Journal) *Store {
	t.Helper()
	s, err := Open(context.Background(), jn)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dumpRows returns the text columns of query's rows, one after another.
func dumpRows(t testing.TB, jn *journal.Journal, query string) []string {
	t.Helper()
	rows, err := jn.Query(context.Background(), query)
	must(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	must(t, err)
	var dump []string
	for rows.Next() {
		row := make([]string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		must(t, rows.Scan(ptrs...))
		dump = append(dump, row...)
	}
	must(t, rows.Err())
	return dump
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
