package lo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"calq/internal/debris"
)

// RemoveDebris removes what SIGKILLed pools left in the temporary
// directory: their state directories (profiles, and work directories
// holding copies of documents), named calq-lo-PID-*, whose PID is gone,
// and the OSL_PIPE sockets of each instance profile in them. A live
// pool's directory is never touched, nor is a socket whose name is not
// computed from a dead directory's profiles. It returns what it removed.
// New calls it; calq convert calls it at every run.
func RemoveDebris() ([]string, error) {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "calq-lo-") || !debris.Dead(e.Name()) {
			continue // a symlink is no directory here: never followed
		}
		dir, err := filepath.Abs(filepath.Join(tmp, e.Name()))
		if err != nil {
			continue
		}
		slots, _ := filepath.Glob(filepath.Join(dir, "lo-*"))
		for _, slot := range slots {
			if fi, err := os.Lstat(slot); err != nil || !fi.IsDir() {
				continue
			}
			l := layout{slot}
			for _, pipe := range []string{pipePath(l.profileURL()), l.lastUNOPipe()} {
				if pipe == "" || !ownSocket(pipe) {
					continue
				}
				if err := os.Remove(pipe); err == nil {
					removed = append(removed, pipe)
				} else if !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}

// lastUNOPipe is the path of the UNO pipe of the slot's last start, or ""
// when it has none (or its record is not a name calq makes).
func (l layout) lastUNOPipe() string {
	b, err := os.ReadFile(l.pipeName())
	name, ok := strings.CutPrefix(string(b), "calq_")
	if err != nil || !ok || len(name) != 32 || strings.Trim(name, "0123456789abcdef") != "" {
		return ""
	}
	return unoPipePath(string(b))
}
