package convert

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// outputMode is the mode of the PDFs calq writes: 0666 less the umask,
// as any program's new files, whatever mode the temporary file had.
var outputMode = sync.OnceValue(func() os.FileMode {
	return 0o666 &^ umask()
})

// umask reads the process's umask from /proc/self/status (Linux 4.7 and
// later), which does not change it as the umask call would; 022 when it
// cannot be read.
func umask() os.FileMode {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0o022
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "Umask:"); ok {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return os.FileMode(m)
			}
		}
	}
	return 0o022
}

func osTempDir() string { return os.TempDir() }

func sortStrings(s []string) { slices.Sort(s) }
