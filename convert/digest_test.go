package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"calq/internal/tooltest"
)

// TestHashRefusesWhatBlocks: hashing an input never blocks on what is not
// a regular file (a FIFO with no writer, a device, /dev/zero), and a read
// honours its context: a stopped run does not hash a huge file to its end.
func TestHashRefusesWhatBlocks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.docx")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{fifo, "a FIFO, not a regular file"},
		{"/dev/zero", "a device, not a regular file"},
		{"/dev/null", "a device, not a regular file"},
		{dir, "a directory, not a regular file"},
	} {
		_, err := fileSum(context.Background(), tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("fileSum(%s) = %v, want %q", tt.path, err, tt.want)
		}
	}
	// A sparse 64 GiB file: a cancelled context stops the read at once.
	big := filepath.Join(dir, "big.pdf")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		tooltest.Unavailable(t, "no sparse file here: %v", err)
	}
	f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := fileSum(ctx, big); !errors.Is(err, context.Canceled) {
		t.Errorf("fileSum with a cancelled context = %v, want context.Canceled", err)
	}
}
