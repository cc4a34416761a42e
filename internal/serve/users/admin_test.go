package users

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"calq/internal/testclock"
)

// TestKeepAdmin: with KeepAdmin, no change leaves the users without an
// enabled administrator, and a refused change changes nothing; without
// it (calq users, on the server itself) the same changes are made.
func TestKeepAdmin(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		users []User // Disabled is set after Add
		op    func(s *Store, g ...Guard) error
		err   string // with KeepAdmin; "" allowed
	}{
		{"remove the only admin", []User{{Name: "root", Admin: true}, {Name: "bob"}},
			func(s *Store, g ...Guard) error { return s.Remove(ctx, "root", g...) },
			`remove user "root": user is the last enabled administrator`},
		{"unadmin the only admin", []User{{Name: "root", Admin: true}, {Name: "bob"}},
			func(s *Store, g ...Guard) error { return s.SetAdmin(ctx, "root", false, g...) },
			`set admin of user "root": user is the last enabled administrator`},
		{"disable the only admin", []User{{Name: "root", Admin: true}, {Name: "bob"}},
			func(s *Store, g ...Guard) error { return s.SetDisabled(ctx, "root", true, g...) },
			`set disabled of user "root": user is the last enabled administrator`},
		{"the other enabled admin is disabled", []User{{Name: "root", Admin: true}, {Name: "carol", Admin: true, Disabled: true}},
			func(s *Store, g ...Guard) error { return s.Remove(ctx, "root", g...) },
			`remove user "root": user is the last enabled administrator`},
		{"remove one of two admins", []User{{Name: "root", Admin: true}, {Name: "carol", Admin: true}},
			func(s *Store, g ...Guard) error { return s.Remove(ctx, "carol", g...) }, ""},
		{"remove a disabled admin", []User{{Name: "root", Admin: true}, {Name: "carol", Admin: true, Disabled: true}},
			func(s *Store, g ...Guard) error { return s.Remove(ctx, "carol", g...) }, ""},
		{"remove a user", []User{{Name: "root", Admin: true}, {Name: "bob"}},
			func(s *Store, g ...Guard) error { return s.Remove(ctx, "bob", g...) }, ""},
		{"no admin to keep", []User{{Name: "bob"}, {Name: "ann"}},
			func(s *Store, g ...Guard) error { return s.Remove(ctx, "bob", g...) }, ""},
		{"enable keeps one", []User{{Name: "root", Admin: true, Disabled: true}},
			func(s *Store, g ...Guard) error { return s.SetDisabled(ctx, "root", false, g...) }, ""},
		{"make an admin", []User{{Name: "bob"}},
			func(s *Store, g ...Guard) error { return s.SetAdmin(ctx, "bob", true, g...) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, guards := range [][]Guard{{KeepAdmin}, nil} {
				s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
				for _, u := range tt.users {
					_, err := s.Add(ctx, u)
					must(t, err)
					must(t, s.SetDisabled(ctx, u.Name, u.Disabled))
				}
				before, err := s.List(ctx)
				must(t, err)
				err = tt.op(s, guards...)
				want := tt.err
				if guards == nil {
					want = ""
				}
				if errString(err) != want || (want != "" && !errors.Is(err, ErrLastAdmin)) {
					t.Fatalf("guards %v: error = %v, want %q", guards, err, want)
				}
				if want != "" {
					checkUsers(t, s, before)
				}
			}
		})
	}
}
