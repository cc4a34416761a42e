package users

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"calq/internal/testclock"
	"calq/sched/journal"
)

func TestSessions(t *testing.T) {
	ctx := context.Background()
	s, jn, c := aliceAndBob(t)
	newSession := func(name string, ttl time.Duration) string {
		t.Helper()
		tok, err := s.NewSession(ctx, name, ttl)
		must(t, err)
		return tok
	}
	a1, a2, b1 := newSession("alice", time.Hour), newSession("alice", 2*time.Hour), newSession("bob", time.Hour)
	if len(a1) != 43 || strings.Trim(a1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" || a1 == a2 {
		t.Errorf("NewSession() = %q, %q, want two different base64url tokens of 43 characters", a1, a2)
	}
	checkSessions(t, s, "new", map[string]string{a1: "alice", a2: "alice", b1: "bob"})

	c.Set(t0.Add(time.Hour - time.Microsecond))
	checkSessions(t, s, "just before expiry", map[string]string{a1: "alice", b1: "bob"})
	c.Set(t0.Add(time.Hour))
	checkSessions(t, s, "expired", map[string]string{a1: "", a2: "alice"})
	if n := countRows(t, jn, "user_sessions"); n != 2 {
		t.Errorf("after Session of an expired session, user_sessions has %d rows, want 2 (a1 deleted)", n)
	}
	newSession("bob", time.Hour) // deletes b1, expired
	if n := countRows(t, jn, "user_sessions"); n != 2 {
		t.Errorf("after NewSession, user_sessions has %d rows, want 2 (expired b1 deleted)", n)
	}
	checkSessions(t, s, "expired and deleted", map[string]string{b1: ""})

	a3 := newSession("alice", time.Hour)
	must(t, s.SetPassword(ctx, "alice", "correct horse"))
	checkSessions(t, s, "new password", map[string]string{a2: "", a3: ""})

	a4 := newSession("alice", time.Hour)
	must(t, s.SetDisabled(ctx, "alice", true))
	checkSessions(t, s, "disabled", map[string]string{a4: ""})
	if _, err := s.NewSession(ctx, "alice", time.Hour); !errors.Is(err, ErrDisabled) {
		t.Errorf("NewSession(disabled alice) error = %v, want ErrDisabled", err)
	}
	must(t, s.SetDisabled(ctx, "alice", false))
	checkSessions(t, s, "enabled again", map[string]string{a4: ""})

	a5, a6 := newSession("alice", time.Hour), newSession("alice", time.Hour)
	must(t, s.EndSession(ctx, a5))
	must(t, s.EndSession(ctx, a5)) // signing out twice is fine
	must(t, s.EndSession(ctx, "not a token"))
	checkSessions(t, s, "ended", map[string]string{a5: "", a6: "alice"})

	newSession("alice", time.Hour)
	if n, err := s.EndSessions(ctx, "alice"); n != 2 || err != nil {
		t.Errorf("EndSessions(alice) = %d, %v, want 2", n, err)
	}
	checkSessions(t, s, "all ended", map[string]string{a6: ""})

	b2 := newSession("bob", time.Hour)
	must(t, s.Remove(ctx, "bob"))
	_, err := s.Add(ctx, User{Name: "bob"}) // a new bob does not get the old one's sessions
	must(t, err)
	checkSessions(t, s, "removed", map[string]string{b2: ""})
	if n := countRows(t, jn, "user_sessions"); n != 0 {
		t.Errorf("user_sessions has %d rows, want 0", n)
	}
}

// TestSessionsOnlyHashesStored reads the table as it is on disk.
func TestSessionsOnlyHashesStored(t *testing.T) {
	ctx := context.Background()
	jn := openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0))
	s := openStore(t, jn)
	_, err := s.Add(ctx, User{Name: "alice"})
	must(t, err)
	tok, err := s.NewSession(ctx, "alice", 30*time.Minute)
	must(t, err)
	dump := dumpRows(t, jn, `SELECT hash, user, created, expires FROM user_sessions`)
	want := []string{hashKey(tok), "alice", "2025-03-01 12:00:00.000000", "2025-03-01 12:30:00.000000"}
	if !reflect.DeepEqual(dump, want) {
		t.Errorf("user_sessions = %q, want %q", dump, want)
	}
}

func TestSessionErrors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
	_, err := s.Add(ctx, User{Name: "alice"})
	must(t, err)
	tok, err := s.NewSession(ctx, "alice", time.Hour)
	must(t, err)
	flipped := []byte(tok)
	flipped[10] ^= 1
	for name, tk := range map[string]string{
		"empty":     "",
		"one bit":   string(flipped),
		"longer":    tok + "x",
		"shorter":   tok[1:],
		"its hash":  hashKey(tok),
		"spaces":    " " + tok + " ",
		"a key":     "calq_" + tok,
		"43 spaces": strings.Repeat(" ", 43),
	} {
		if u, err := s.Session(ctx, tk); err != ErrNoSession {
			t.Errorf("Session(%s) = %+v, %v, want ErrNoSession", name, u, err)
		}
	}
	for _, tt := range []struct {
		name string
		op   func() error
		is   error
		msg  string
	}{
		{"new, missing user", func() error { _, err := s.NewSession(ctx, "carol", time.Hour); return err },
			ErrNoUser, `new session for user "carol": no such user`},
		{"new, no time", func() error { _, err := s.NewSession(ctx, "alice", 0); return err },
			nil, `new session for user "alice": a session's time to live is 0s, want more than 0`},
		{"end all, missing user", func() error { _, err := s.EndSessions(ctx, "carol"); return err },
			ErrNoUser, `end sessions of user "carol": no such user`},
	} {
		err := tt.op()
		if errString(err) != tt.msg || (tt.is != nil && !errors.Is(err, tt.is)) {
			t.Errorf("%s: error = %v, want %q (%v)", tt.name, err, tt.msg, tt.is)
		}
	}
	checkSessions(t, s, "after errors", map[string]string{tok: "alice"})
}

// TestUpgradeV1 opens a journal whose users tables are at version 1: its
// users keep their keys and have no password, enabled.
func TestUpgradeV1(t *testing.T) {
	ctx := context.Background()
	jn := openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0))
	must(t, jn.Migrate(ctx, "users", []string{schema}))
	must(t, jn.Migrate(ctx, "old", []string{`INSERT INTO users (name, admin, profile, created) VALUES ('bob', 1, '', '2025-03-01 12:00:00.000000');
		INSERT INTO user_keys (hash, user, prefix, created) VALUES ('h', 'bob', 'calq_x', '2025-03-01 12:00:00.000000')`}))
	s := openStore(t, jn)
	checkUsers(t, s, []User{{Name: "bob", Admin: true, Keys: 1, Created: t0}})
	must(t, s.SetPassword(ctx, "bob", "correct horse"))
	if u, err := s.CheckPassword(ctx, "bob", "correct horse"); err != nil || !u.Password || u.Keys != 1 {
		t.Errorf("CheckPassword(bob) after the upgrade = %+v, %v, want bob with a password and his key", u, err)
	}
}

// checkSessions checks whose each session token is: "" for no one's.
func checkSessions(t *testing.T, s *Store, when string, whose map[string]string) {
	t.Helper()
	for tok, name := range whose {
		u, err := s.Session(context.Background(), tok)
		switch {
		case name == "" && (err != ErrNoSession || u != User{}):
			t.Errorf("%s: Session(%q) = %+v, %v, want ErrNoSession", when, tok, u, err)
		case name != "" && (err != nil || u.Name != name):
			t.Errorf("%s: Session(%q) = %+v, %v, want %s", when, tok, u, err, name)
		}
	}
}

func countRows(t *testing.T, jn *journal.Journal, table string) int {
	t.Helper()
	return len(dumpRows(t, jn, `SELECT hash FROM `+table))
}

// TestMaxSessions: each sign-in adds a session, and a user keeps at most
// MaxSessions of them: the oldest ends when one more starts. Another
// user's sessions stay.
func TestMaxSessions(t *testing.T) {
	ctx := context.Background()
	s, jn, c := aliceAndBob(t)
	bob, err := s.NewSession(ctx, "bob", time.Hour)
	must(t, err)
	var toks []string
	for i := range MaxSessions + 5 {
		if i%2 == 0 {
			c.Set(t0.Add(time.Duration(i) * time.Second)) // some at the same time
		}
		tok, err := s.NewSession(ctx, "alice", time.Hour)
		must(t, err)
		toks = append(toks, tok)
	}
	if n := countRows(t, jn, "user_sessions"); n != MaxSessions+1 {
		t.Errorf("after %d sign-ins of alice and one of bob, user_sessions has %d rows, want %d", len(toks), n, MaxSessions+1)
	}
	whose := map[string]string{bob: "bob"}
	for i, tok := range toks {
		whose[tok] = "alice"
		if i < 5 {
			whose[tok] = ""
		}
	}
	checkSessions(t, s, "after many sign-ins", whose)
}

// writeCounter counts the writes of a Store to the real journal.
type writeCounter struct {
	DB
	writes atomic.Int32
}

func (w *writeCounter) Write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	w.writes.Add(1)
	return w.DB.Write(ctx, fn)
}

// TestEndSessionNotAToken: signing out with a cookie that is no token
// calq made (anyone may send one) costs no write.
func TestEndSessionNotAToken(t *testing.T) {
	ctx := context.Background()
	db := &writeCounter{DB: openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0))}
	s, err := Open(ctx, db)
	must(t, err)
	before := db.writes.Load()
	for _, tok := range []string{"", "x", strings.Repeat("x", 64<<10)} {
		must(t, s.EndSession(ctx, tok))
	}
	if got := db.writes.Load() - before; got != 0 {
		t.Errorf("EndSession of what is no token: %d writes, want none", got)
	}
}

// aliceAndBob is a store of two users, alice and bob, on a journal whose
// clock the test sets.
func aliceAndBob(t *testing.T) (*Store, *journal.Journal, *testclock.Clock) {
	t.Helper()
	c := testclock.New(t0)
	jn := openJournal(t, filepath.Join(t.TempDir(), "calq.db"), c)
	s := openStore(t, jn)
	for _, name := range []string{"alice", "bob"} {
		_, err := s.Add(context.Background(), User{Name: name})
		must(t, err)
	}
	return s, jn, c
}
