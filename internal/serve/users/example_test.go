package users_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"calq/internal/serve/users"
	"calq/sched/journal"
)

// A user, a key, and a request that carries it as Gotenberg's clients do.
func ExampleStore_Authenticate() {
	ctx := context.Background()
	s, done := exampleStore(ctx)
	defer done()

	if _, err := s.Add(ctx, users.User{Name: "billing", Profile: "legal"}); err != nil {
		log.Fatal(err)
	}
	key, err := s.NewKey(ctx, "billing") // shown once: only its hash is kept
	if err != nil {
		log.Fatal(err)
	}
	r := httptest.NewRequest("POST", "/forms/libreoffice/convert", nil)
	r.SetBasicAuth("billing", key)
	k, _ := users.KeyFromRequest(r)
	u, err := s.Authenticate(ctx, k)
	fmt.Println(u.Name, u.Profile, err)
	_, err = s.Authenticate(ctx, "calq_guess")
	fmt.Println(err)
	// Output:
	// billing legal <nil>
	// unknown API key
}

// Signing in to the web pages: a password, then a session whose token
// goes into a cookie.
func ExampleStore_NewSession() {
	ctx := context.Background()
	s, done := exampleStore(ctx)
	defer done()
	if _, err := s.Add(ctx, users.User{Name: "alice"}); err != nil {
		log.Fatal(err)
	}
	if err := s.SetPassword(ctx, "alice", "correct horse"); err != nil {
		log.Fatal(err)
	}

	_, err := s.CheckPassword(ctx, "alice", "wrong horse")
	fmt.Println(errors.Is(err, users.ErrBadPassword))
	u, err := s.CheckPassword(ctx, "alice", "correct horse")
	if err != nil {
		log.Fatal(err)
	}
	token, err := s.NewSession(ctx, u.Name, 12*time.Hour) // shown once: only its hash is kept
	if err != nil {
		log.Fatal(err)
	}
	u, err = s.Session(ctx, token)
	fmt.Println(u.Name, err)
	if err := s.EndSession(ctx, token); err != nil { // sign out
		log.Fatal(err)
	}
	_, err = s.Session(ctx, token)
	fmt.Println(err)
	// Output:
	// true
	// alice <nil>
	// no such session
}

// exampleStore opens a store in a new journal, which done removes.
func exampleStore(ctx context.Context) (s *users.Store, done func()) {
	dir, err := os.MkdirTemp("", "journal")
	if err != nil {
		log.Fatal(err)
	}
	jn, err := journal.Open(ctx, filepath.Join(dir, "calq.db"), journal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if s, err = users.Open(ctx, jn); err != nil {
		log.Fatal(err)
	}
	return s, func() {
		jn.Close()
		os.RemoveAll(dir)
	}
}
