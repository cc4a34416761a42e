package users_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"

	"calq/internal/serve/users"
	"calq/sched/journal"
)

// A user, a key, and a request that carries it as Gotenberg's clients do.
func ExampleStore_Authenticate() {
	dir, err := os.MkdirTemp("", "journal")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	jn, err := journal.Open(ctx, filepath.Join(dir, "calq.db"), journal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer jn.Close()
	s, err := users.Open(ctx, jn)
	if err != nil {
		log.Fatal(err)
	}

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
