// Package debris names calq's temporary files and directories so that a
// later run can tell a dead process's leftovers from a live one's, and
// removes the dead ones' (Sweep). A name is "[.]calq-KIND-PID-RANDOM":
// a run killed with SIGKILL leaves such names behind, and the next run
// that looks in that directory removes those whose PID is gone.
//
// Entry points: Pattern, for os.CreateTemp and os.MkdirTemp; Dead, for a
// name's owner; Sweep, for a directory. All are safe for concurrent use.
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

// Sweep removes the entries of dir whose names Dead says belong to a
// process that is gone, keeping those of kinds not listed when kinds is
// not empty. It returns the paths it removed; a directory that does not
// exist has none.
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
		if !ok || !Dead(e.Name()) || (len(kinds) > 0 && !contains(kinds, kind)) {
			continue
		}
		p := filepath.Join(dir, e.Name())
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
