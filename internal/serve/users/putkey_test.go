package users

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"calq/internal/testclock"
)

// TestPutKey: a key the operator chose authenticates its user; putting
// another under the same label replaces it, and other keys stay.
func TestPutKey(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
	for _, name := range []string{"foo", "bob"} {
		_, err := s.Add(ctx, User{Name: name})
		must(t, err)
	}
	drawn, err := s.NewKey(ctx, "foo")
	must(t, err)
	const label = "env:GOTENBERG_API_BASIC_AUTH_PASSWORD"
	must(t, s.PutKey(ctx, "foo", "bar", label))
	steps := []struct {
		name, key string
		want      string // the user; "" refused
	}{
		{"the put key", "bar", "foo"},
		{"the drawn key", drawn, "foo"},
		{"another", "baz", ""},
	}
	for _, st := range steps {
		u, err := s.Authenticate(ctx, st.key)
		if got := u.Name; (err == nil) != (st.want != "") || got != st.want {
			t.Errorf("%s: Authenticate = %q, %v, want %q", st.name, got, err, st.want)
		}
	}
	must(t, s.PutKey(ctx, "foo", "baz", label))
	if _, err := s.Authenticate(ctx, "bar"); err == nil {
		t.Error("the replaced key still authenticates")
	}
	if u, err := s.Authenticate(ctx, "baz"); err != nil || u.Name != "foo" {
		t.Errorf("the new key: got %q, %v, want foo", u.Name, err)
	}
	if ks, _ := s.Keys(ctx, "foo"); len(ks) != 2 || ks[1].Prefix != label && ks[0].Prefix != label {
		t.Errorf("got keys %v, want the drawn one and %s", ks, label)
	}
	if err := s.PutKey(ctx, "nobody", "x", label); !errors.Is(err, ErrNoUser) {
		t.Errorf("a user who does not exist: got %v, want ErrNoUser", err)
	}
	if err := s.PutKey(ctx, "bob", "baz", label); err == nil {
		t.Error("bob was given foo's key")
	}
	if err := s.PutKey(ctx, "bob", " x", label); err == nil {
		t.Error("a key with a space around it was put")
	}
}
