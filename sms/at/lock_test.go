//go:build unix

package at

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockQueues: a second locker waits until the first unlocks.
func TestLockQueues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "modem.lock")
	ctx := context.Background()
	unlock1, err := LockFile(ctx, path)
	if err != nil {
		t.Fatalf("first LockFile: %v", err)
	}
	got := make(chan error, 1)
	var unlock2 func()
	go func() {
		var err error
		unlock2, err = LockFile(ctx, path)
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("second LockFile returned %v while the first holds the lock", err)
	default:
	}
	unlock1()
	if err := <-got; err != nil {
		t.Fatalf("second LockFile after unlock: %v", err)
	}
	unlock2()
}

// TestLockCancelled: a waiting locker gives up when ctx is done, and holds
// nothing afterwards.
func TestLockCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "modem.lock")
	unlock, err := LockFile(context.Background(), path)
	if err != nil {
		t.Fatalf("LockFile: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, err := LockFile(ctx, path)
		got <- err
	}()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Errorf("LockFile with cancelled ctx = %v, want context.Canceled", err)
	}
	unlock()
	again, err := LockFile(context.Background(), path)
	if err != nil {
		t.Fatalf("LockFile after the canceller gave up: %v", err)
	}
	again()
}

// TestLockPath: one file per device, symlinks resolved.
func TestLockPath(t *testing.T) {
	p := LockPath("/dev/ttyUSB7")
	if !strings.HasSuffix(p, "calq-sms-dev_ttyUSB7.lock") {
		t.Errorf("LockPath = %q, want .../calq-sms-dev_ttyUSB7.lock", p)
	}
	if LockPath("/dev/ttyUSB7") == LockPath("/dev/ttyUSB8") {
		t.Error("two devices share a lock file")
	}
}
