//go:build unix

package at

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"calq/internal/fsio"
)

// lockPoll is how often a blocked Lock retries. flock(2) cannot be
// interrupted by a context, so Lock polls with LOCK_NB instead of parking a
// goroutine in a blocking flock that would outlive a cancelled ctx.
const lockPoll = 100 * time.Millisecond

// LockPath is the lock file of device: calq-sms-<resolved device path>.lock
// in /run/lock when that is writable by everyone (Debian's 1777), else in
// /tmp. The choice depends on the directory only, never on the user or
// $TMPDIR, so every process finds the same file. Symlinks are resolved so
// /dev/serial/by-id/... and /dev/ttyUSB0 share one lock.
func LockPath(device string) string {
	if p, err := filepath.EvalSymlinks(device); err == nil {
		device = p
	}
	dir := "/run/lock"
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o002 == 0 {
		dir = "/tmp"
	}
	name := strings.Trim(strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(device), "_")
	return filepath.Join(dir, "calq-sms-"+name+".lock")
}

// Lock takes the advisory lock of device (see LockPath), waiting until it is
// free or ctx is done, so overlapping cron jobs queue instead of interleaving
// AT commands. unlock releases it; the lock also dies with the process.
func Lock(ctx context.Context, device string) (unlock func(), err error) {
	return LockFile(ctx, LockPath(device))
}

// LockFile is Lock on an explicit lock file path.
func LockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("at: lock: %w", err)
	}
	var tick *time.Ticker
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("at: lock %s: %w", path, err)
		}
		if tick == nil {
			tick = time.NewTicker(lockPoll)
			defer tick.Stop()
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("at: lock %s: held by %s: %w", path, holder(path), ctx.Err())
		}
	}
	// The pid is for people wondering who holds the modem; flock is the lock.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// openLockFile opens path, creating it writable by every user (past the
// umask) so that another user's calq can take the lock too; a file another
// user created without that is opened read-only, which flock accepts.
//
// The directory is shared with every local user: what another user put at
// path is never followed (O_NOFOLLOW), waited on (O_NONBLOCK: a FIFO) or
// taken unless it is a regular file.
func openLockFile(path string) (*os.File, error) {
	const flags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|flags, 0o666)
	if err == nil {
		_ = f.Chmod(0o666)
		return f, nil
	}
	if f, err = os.OpenFile(path, os.O_RDWR|flags, 0); err != nil {
		if f, err = os.OpenFile(path, os.O_RDONLY|flags, 0); err != nil {
			return nil, err
		}
	}
	fi, err := f.Stat()
	if err == nil {
		err = fsio.Regular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// holder is who the lock file says holds it: its first line, a pid, read
// to at most 64 bytes (another user may have made it huge).
func holder(path string) string {
	b, err := fsio.ReadFile(path, 64)
	line, _, _ := strings.Cut(string(b), "\n")
	if _, perr := strconv.Atoi(strings.TrimSpace(line)); err != nil || perr != nil {
		return "another process"
	}
	return "pid " + strings.TrimSpace(line)
}
