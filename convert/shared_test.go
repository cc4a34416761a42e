package convert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"calq/sched"
)

// TestSharedWorkerSharedInput: a worker reads a shared-root job's input
// from its own mount of the share, and refuses, for good, an input that
// changed since it was submitted or a path that leaves the share.
func TestSharedWorkerSharedInput(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("hello"))
	good := hex.EncodeToString(sum[:])
	w := &SharedWorker{SharedRoot: root, ShareID: "share-1"}
	tests := []struct {
		name    string
		p       sharedPayload
		wantErr string
	}{
		{"as submitted", sharedPayload{Path: "a.txt", Input: good}, ""},
		{"changed", sharedPayload{Path: "a.txt", Input: strings.Repeat("0", 64)}, "changed on the share since it was submitted"},
		{"outside", sharedPayload{Path: "../etc/passwd", Input: good}, "is not below the shared root"},
		{"missing", sharedPayload{Path: "b.txt", Input: good}, "read b.txt on the share"},
		{"its share", sharedPayload{Path: "a.txt", Input: good, Share: "share-1"}, ""},
		{"another share", sharedPayload{Path: "a.txt", Input: good, Share: "share-2"}, "on the share share-2, which this worker does not mount"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.txt")
			err := w.input(context.Background(), tt.p, in)
			if tt.wantErr == "" {
				if b, rerr := os.ReadFile(in); err != nil || rerr != nil || string(b) != "hello" {
					t.Fatalf("input %d: %v, %q", i, err, b)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !sched.IsPermanent(err) {
				t.Errorf("error %v, want a permanent one with %q", err, tt.wantErr)
			}
		})
	}
	if err := (&SharedWorker{}).input(context.Background(), sharedPayload{Path: "a.txt", Input: good}, filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), "--shared-root") {
		t.Errorf("a worker without a shared root: %v", err)
	}
}

func TestNewSharedWorkerOnNoPool(t *testing.T) {
	if w, err := NewSharedWorkerOn(nil, nil); err == nil || w != nil {
		t.Errorf("NewSharedWorkerOn(nil pool) = %v, %v; want an error", w, err)
	}
}

func TestBelowRoot(t *testing.T) {
	root := t.TempDir()
	for _, tt := range []struct{ path, want string }{
		{filepath.Join(root, "a", "b.doc"), "a/b.doc"},
		{root, "."}, // the share itself, as an input directory
		{filepath.Dir(root), ""},
		{filepath.Join(root, "..", "x"), ""},
	} {
		got, err := BelowRoot(root, tt.path)
		if got != tt.want || (tt.want == "") != (err != nil) {
			t.Errorf("BelowRoot(%s): %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

// TestShareID: the first use of a share writes its id; every later one,
// through any path to it, reads the same; what is not an id is refused.
func TestShareID(t *testing.T) {
	root := t.TempDir()
	first, err := ShareID(root)
	if err != nil || len(first) != 24 {
		t.Fatalf("first use: %q, %v; want a new 24-digit id", first, err)
	}
	link := filepath.Join(t.TempDir(), "mnt")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{root, link} {
		if again, err := ShareID(r); err != nil || again != first {
			t.Errorf("ShareID(%s) = %q, %v; want %q", r, again, err, first)
		}
	}
	left, _ := os.ReadDir(filepath.Join(root, sharedWork))
	if len(left) != 1 || left[0].Name() != "id" {
		t.Errorf("%v in %s, want only id", left, sharedWork)
	}
	if err := os.WriteFile(filepath.Join(root, sharedWork, "id"), []byte("a b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ShareID(root); err == nil || !strings.Contains(err.Error(), "holds no share id") {
		t.Errorf("a damaged id: %v", err)
	}
}

// TestShareIDRace: machines that first use a share at once agree on its id.
func TestShareIDRace(t *testing.T) {
	root := t.TempDir()
	ids := make(chan string, 8)
	for range 8 {
		go func() {
			id, err := ShareID(root)
			if err != nil {
				t.Error(err)
			}
			ids <- id
		}()
	}
	first := <-ids
	for range 7 {
		if id := <-ids; id != first {
			t.Errorf("ids %q and %q for one share", first, id)
		}
	}
}

// TestKindsStored: the kinds are written in journals and shared queues
// that outlive a calq version, so their strings never change, and each
// belongs to the family Kind that calq history --kind and calq worker
// --kinds take.
func TestKindsStored(t *testing.T) {
	if Kind != "convert" {
		t.Errorf("Kind = %q, want convert", Kind)
	}
	want := []string{"convert-office", "convert-image", "convert-pdf"}
	got := Kinds()
	if !slices.Equal(got, want) {
		t.Fatalf("Kinds() = %q, want %q", got, want)
	}
	for _, k := range got {
		if !strings.HasPrefix(k, Kind+"-") {
			t.Errorf("kind %q is not in the family %q", k, Kind)
		}
	}
	got[0] = "changed"
	if Kinds()[0] != want[0] {
		t.Errorf("Kinds() shares its slice with callers: %q", Kinds())
	}
}
