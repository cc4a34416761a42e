package servecmd

import (
	"context"
	"path/filepath"
	"testing"

	"calq/internal/serve"
	"calq/sched/journal"
)

// TestPageStores: the pages' address books and profiles open on a new
// journal and data directory.
func TestPageStores(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	j, err := journal.Open(ctx, filepath.Join(dir, "calq.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	book, profiles, err := pageStores(ctx, j, dir)
	if err != nil || book == nil || profiles == nil {
		t.Fatalf("pageStores: %v %v %v", book, profiles, err)
	}
	contacts := serve.BookContacts{Book: book}
	if err := contacts.Set(ctx, "alice", serve.Contact{Name: "boss", Address: "boss@example.org", Phone: "+4915112345678"}); err != nil {
		t.Fatal(err)
	}
	list, err := contacts.List(ctx, "alice")
	if err != nil || len(list) != 1 {
		t.Errorf("alice's book: %v %v, want one contact", list, err)
	}
}
