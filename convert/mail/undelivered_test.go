package mail

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"calq/sched/journal"
)

// TestUndelivered: the record keeps exactly what Set was given, per
// delivery; the key of a delivery ignores the recipients' order and case
// but not who they are, nor the output directory.
func TestUndelivered(t *testing.T) {
	ctx := context.Background()
	jn, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer jn.Close()
	u, err := OpenUndelivered(ctx, jn)
	if err != nil {
		t.Fatal(err)
	}
	alice := deliveryKey([]string{"alice@example.com", "bob@example.com"}, "/out")
	steps := []struct {
		name string
		set  []string // nil: only read
		want []string
	}{
		{"empty", nil, nil},
		{"failed", []string{"/out/b.pdf", "/out/a.pdf"}, []string{"/out/a.pdf", "/out/b.pdf"}},
		{"failed again", []string{"/out/c.pdf"}, []string{"/out/c.pdf"}},
		{"sent", []string{}, nil},
	}
	for _, s := range steps {
		if s.set != nil {
			if err := u.Set(ctx, alice, s.set); err != nil {
				t.Fatalf("%s: Set: %v", s.name, err)
			}
		}
		got, err := u.Files(ctx, alice)
		if err != nil || !slices.Equal(got, s.want) {
			t.Errorf("%s: Files = %q, %v; want %q", s.name, got, err, s.want)
		}
	}
	keys := []struct {
		name string
		to   []string
		out  string
		same bool
	}{
		{"order and case", []string{"Bob@example.com", "alice@example.com"}, "/out", true},
		{"another recipient", []string{"alice@example.com"}, "/out", false},
		{"another directory", []string{"alice@example.com", "bob@example.com"}, "/out2", false},
	}
	for _, k := range keys {
		if got := deliveryKey(k.to, k.out) == alice; got != k.same {
			t.Errorf("%s: same delivery %v, want %v", k.name, got, k.same)
		}
	}
}
