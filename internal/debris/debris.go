// Package debris names calq's temporary files and directories so that a
// later run can tell a dead process's leftovers from a live one's, and
// removes the dead ones' (Sweep). A name is "[.]calq-KIND-PID-RANDOM":
// a run killed with SIGKILL leaves such names behind, and the next run
// that looks in that directory removes those whose PID is gone.
//
// A directory made by MkdirLocked also holds an flock on a file inside it
// while its process lives, so that Sweep tells it from a dead one's even
// when the PID was reused. Sweep removes only what the current user owns:
// calq run as root never removes another user's files from /tmp.
//
// Entry points: Pattern, for os.CreateTemp and os.MkdirTemp; MkdirLocked,
// for a work directory; Dead, for a name's owner; Sweep, for a directory.
// All are safe for concurrent use.
package debris

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
)

// Pattern is an os.CreateTemp/os.MkdirTemp pattern for a temporary of
// kind (a lower-case word: "lo", "pdf", "part") owned by this process:
// "calq-KIND-PID-*", with a leading dot when hidden.
func Pattern(kind string, hidden bool) string {
	p := "calq-" + kind + "-" + strconv.Itoa(os.Getpid()) + "-*"
	if hidden {
		p = "." + p
	}
	return p
}

var name = regexp.MustCompile(`^\.?calq-([a-z]+)-([0-9]+)-`)

// Owner returns the kind and PID in a name made from Pattern; ok is false
// for any other name.
func Owner(base string) (kind string, pid int, ok bool) {
	m := name.FindStringSubmatch(base)
	if m == nil {
		return "", 0, false
	}
	pid, err := strconv.Atoi(m[2])
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return m[1], pid, true
}

// Dead reports whether base is a name made from Pattern whose process no
// longer exists on this host. A PID that was reused since counts as
// alive: its debris stays until that process is gone too, which is
// harmless.
func Dead(base string) bool {
	_, pid, ok := Owner(base)
	return ok && !alive(pid)
}

func alive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// lockName is the file inside a MkdirLocked directory that its process
// holds an flock on.
const lockName = ".lock"

// MkdirLocked makes a private directory (0700) named from Pattern(kind,
// false) under parent (os.TempDir() when "") and holds an exclusive flock
// on a file inside it until release, which removes the directory. A
// process killed with SIGKILL releases the lock with its last file
// descriptor, and the next Sweep of parent removes the directory.
func MkdirLocked(parent, kind string) (dir string, release func() error, err error) {
	if parent == "" {
		parent = os.TempDir()
	}
	dir, err = os.MkdirTemp(parent, Pattern(kind, false))
	if err != nil {
		return "", nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err == nil {
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, func() error { return errors.Join(os.RemoveAll(dir), f.Close()) }, nil
}

// unlocked reports whether path is a directory holding a lock file that
// no process holds an flock on: a MkdirLocked directory whose process is
// gone, even if another process has its PID now. A directory without a
// lock file (one being made, or another calq's) is not.
func unlocked(path string) bool {
	f, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	// Held until the Close: a process cannot take it in between.
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// mine reports whether the current user owns fi (not following a link).
func mine(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// Sweep removes the entries of dir that the current user owns and whose
// process is gone (Dead says so, or a MkdirLocked directory's lock is
// free), keeping those of kinds not listed when kinds is not empty. It
// returns the paths it removed; a directory that does not exist has none.
func Sweep(dir string, kinds ...string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		kind, _, ok := Owner(e.Name())
		if !ok || (len(kinds) > 0 && !contains(kinds, kind)) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil || !mine(fi) || !(Dead(e.Name()) || fi.IsDir() && unlocked(p)) {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
