package smsapi

import (
	"context"
	"testing"

	"calq/internal/serve/users"
)

// TestAllowed: the users given the right may send, the others and the
// anonymous user of a server without users may not.
func TestAllowed(t *testing.T) {
	e := newEnv(t, nil)
	for _, tt := range []struct {
		user users.User
		want bool
	}{{users.User{Name: "alice"}, true}, {users.User{Name: "carol"}, false}, {users.User{Name: "root", Admin: true}, true}, {users.User{}, false}} {
		if got, err := e.svc.Allowed(context.Background(), tt.user); got != tt.want || err != nil {
			t.Errorf("Allowed(%q) = %v, %v; want %v", tt.user.Name, got, err, tt.want)
		}
	}
}
