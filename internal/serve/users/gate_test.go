package users

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"calq/internal/testclock"
)

func TestHashGate(t *testing.T) {
	g := NewHashGate(2)
	steps := []struct {
		name  string
		enter bool // TryEnter, else Leave
		got   bool // what TryEnter says
		want  HashStats
	}{
		{"first", true, true, HashStats{Running: 1, Most: 1}},
		{"second", true, true, HashStats{Running: 2, Most: 2}},
		{"third refused", true, false, HashStats{Running: 2, Most: 2, Busy: 1}},
		{"one ends", false, false, HashStats{Running: 1, Most: 2, Done: 1, Busy: 1, Unreleased: 1}},
		{"third again", true, true, HashStats{Running: 2, Most: 2, Done: 1, Busy: 1, Unreleased: 1}},
	}
	for _, st := range steps {
		if st.enter {
			if got := g.TryEnter(); got != st.got {
				t.Errorf("%s: TryEnter() = %v, want %v", st.name, got, st.got)
			}
		} else {
			g.Leave()
		}
		if got := g.Stats(); got != st.want {
			t.Errorf("%s: Stats() = %+v, want %+v", st.name, got, st.want)
		}
	}
	g.SetMax(0)
	if g.Max() != 1 {
		t.Errorf("SetMax(0): Max() = %d, want 1", g.Max())
	}
}

// TestHashGateRelease: the memory is given back when the last hash of a
// burst ends, at most once a second, and not while hashes run.
func TestHashGateRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewHashGate(4)
		var released atomic.Int32
		g.release = func() { released.Add(1) }
		check := func(when string, want int32, unreleased int) {
			t.Helper()
			synctest.Wait()
			st := g.Stats()
			if got := released.Load(); got != want || st.Released != uint64(want) || st.Unreleased != unreleased {
				t.Errorf("%s: released %d times (Stats %+v), want %d with %d hashes unreleased", when, got, st, want, unreleased)
			}
		}
		g.TryEnter()
		g.TryEnter()
		g.Leave()
		check("one of two ended", 0, 1)
		g.Leave()
		check("both ended", 1, 0)
		g.TryEnter()
		g.Leave()
		check("another at once", 1, 1)
		time.Sleep(time.Second)
		check("a second later", 2, 0)
		g.TryEnter()
		g.Leave()
		g.TryEnter()
		time.Sleep(time.Second)
		check("a hash runs when it is due", 2, 1)
		g.Leave()
		check("it ended", 3, 0)
	})
}

// TestCheckPasswordBusy: beyond the gate's places a check is refused at
// once, without a hash, and a burst never runs more hashes at once than
// the gate allows.
func TestCheckPasswordBusy(t *testing.T) {
	ctx := context.Background()
	s := aliceStore(t)
	s.hashes = NewHashGate(2)
	s.hashes.TryEnter()
	s.hashes.TryEnter()
	for name, err := range map[string]error{
		"check": func() error { _, err := s.CheckPassword(ctx, "alice", "correct horse"); return err }(),
		"set":   s.SetPassword(ctx, "alice", "battery staple"),
	} {
		if !errors.Is(err, ErrBusy) {
			t.Errorf("%s while the gate is full: error %v, want ErrBusy", name, err)
		}
	}
	if st := s.hashes.Stats(); st.Done != 0 || st.Busy != 2 {
		t.Errorf("gate full: %+v, want no hash done and 2 refused", st)
	}
	if _, err := s.CheckPassword(ctx, "alice", "battery staple"); !errors.Is(err, ErrBusy) {
		t.Errorf("the refused SetPassword changed the password? %v", err)
	}
	s.hashes.Leave()
	s.hashes.Leave()

	var wg sync.WaitGroup
	var checked, busy atomic.Int32
	for range 16 {
		wg.Go(func() {
			_, err := s.CheckPassword(ctx, "alice", "correct horse")
			switch {
			case err == nil:
				checked.Add(1)
			case errors.Is(err, ErrBusy):
				busy.Add(1)
			default:
				t.Errorf("CheckPassword: %v", err)
			}
		})
	}
	wg.Wait()
	st := s.hashes.Stats()
	if st.Most > 2 || int(checked.Load()+busy.Load()) != 16 || uint64(checked.Load()) != st.Done-2 {
		t.Errorf("16 checks at once: %d checked, %d busy, %+v; want at most 2 at once, each checked or busy", checked.Load(), busy.Load(), st)
	}
}

// TestCheckPasswordNoUser: a name that is no user's says so to the
// caller's log (ErrNoUser beside ErrBadPassword) without repeating the
// name, which may be a password typed in the wrong field; a name or
// password that no user can have costs no hash.
func TestCheckPasswordNoUser(t *testing.T) {
	ctx := context.Background()
	s := aliceStore(t)
	s.hashes = NewHashGate(1)
	tests := []struct {
		name, user, pw string
		noUser         bool
		hashes         uint64
	}{
		{"wrong password", "alice", "wrong horse", false, 1},
		{"unknown name", "Correct-Horse-9", "x", true, 1},
		{"not a name", "correct horse battery", "x", true, 0},
		{"too long a password", "alice", strings.Repeat("x", MaxPasswordLen+1), false, 0},
	}
	for _, tt := range tests {
		before := s.hashes.Stats().Done
		_, err := s.CheckPassword(ctx, tt.user, tt.pw)
		if !errors.Is(err, ErrBadPassword) || errors.Is(err, ErrNoUser) != tt.noUser {
			t.Errorf("%s: error %v, want ErrBadPassword (ErrNoUser %v)", tt.name, err, tt.noUser)
		}
		if tt.noUser && strings.Contains(err.Error(), tt.user) {
			t.Errorf("%s: error %q repeats the name", tt.name, err)
		}
		if got := s.hashes.Stats().Done - before; got != tt.hashes {
			t.Errorf("%s: %d hashes, want %d", tt.name, got, tt.hashes)
		}
	}
}

// TestAddWithPassword: a user added with a password has it at once; a
// refused hash leaves no user behind.
func TestAddWithPassword(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
	s.hashes = NewHashGate(1)
	u, err := s.AddWithPassword(ctx, User{Name: "alice", Admin: true}, "correct horse")
	if err != nil || !u.Password || !u.Admin {
		t.Fatalf("AddWithPassword(alice) = %+v, %v, want an admin with a password", u, err)
	}
	if _, err := s.CheckPassword(ctx, "alice", "correct horse"); err != nil {
		t.Errorf("alice's password: %v", err)
	}
	for _, tt := range []struct {
		name, user, pw string
		full           bool
		is             error
	}{
		{"busy", "bob", "correct horse", true, ErrBusy},
		{"short password", "bob", "short", false, ErrInvalidPassword},
		{"taken", "alice", "correct horse", false, ErrUserExists},
	} {
		if tt.full {
			s.hashes.TryEnter()
		}
		_, err := s.AddWithPassword(ctx, User{Name: tt.user}, tt.pw)
		if tt.full {
			s.hashes.Leave()
		}
		if !errors.Is(err, tt.is) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.is)
		}
	}
	if _, err := s.Get(ctx, "bob"); !errors.Is(err, ErrNoUser) {
		t.Errorf("Get(bob) after refused adds: %v, want ErrNoUser", err)
	}
}

// aliceStore is a store of one user, alice, whose password is "correct
// horse".
func aliceStore(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
	_, err := s.AddWithPassword(ctx, User{Name: "alice"}, "correct horse")
	must(t, err)
	return s
}
