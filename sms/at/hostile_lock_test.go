//go:build unix

package at

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockHostile: the lock directory (/run/lock, /tmp) is every local
// user's; what another user puts at a lock file's path is refused at
// once, never waited on (a FIFO), followed (a symlink) or read whole (a
// huge file naming its holder).
func TestLockHostile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.lock")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "victim")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, path, want string }{
		{"fifo", fifo, fifo + " is a FIFO: not a regular file"},
		{"symlink", link, "too many levels of symbolic links"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			unlock, err := LockFile(ctx, tt.path)
			if err == nil {
				unlock()
				t.Fatalf("LockFile(%s) took it, want %q", tt.path, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || ctx.Err() != nil {
				t.Errorf("LockFile(%s) = %v, want %q at once", tt.path, err, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the symlink's target holds %q, want it untouched", b)
	}
	huge := filepath.Join(dir, "huge.lock")
	if err := exec.Command("truncate", "-s", "1G", huge).Run(); err != nil {
		t.Fatal(err)
	}
	if got := holder(huge); got != "another process" {
		t.Errorf("holder(1 GiB of zeros) = %q, want %q", got, "another process")
	}
	pid := filepath.Join(dir, "pid.lock")
	if err := os.WriteFile(pid, []byte("4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := holder(pid); got != "pid 4242" {
		t.Errorf("holder = %q, want pid 4242", got)
	}
}
