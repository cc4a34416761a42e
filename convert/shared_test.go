package convert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"calq/sched"
)

// TestRemoteWorkerSharedInput: a worker reads a shared-root job's input
// from its own mount of the share, and refuses, for good, an input that
// changed since it was submitted or a path that leaves the share.
func TestRemoteWorkerSharedInput(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("hello"))
	good := hex.EncodeToString(sum[:])
	w := &RemoteWorker{SharedRoot: root}
	tests := []struct {
		name    string
		p       remotePayload
		wantErr string
	}{
		{"as submitted", remotePayload{Path: "a.txt", Input: good}, ""},
		{"changed", remotePayload{Path: "a.txt", Input: strings.Repeat("0", 64)}, "changed on the share since it was submitted"},
		{"outside", remotePayload{Path: "../etc/passwd", Input: good}, "is not below the shared root"},
		{"missing", remotePayload{Path: "b.txt", Input: good}, "read b.txt on the share"},
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
	if err := (&RemoteWorker{}).input(context.Background(), remotePayload{Path: "a.txt", Input: good}, filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), "--shared-root") {
		t.Errorf("a worker without a shared root: %v", err)
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
