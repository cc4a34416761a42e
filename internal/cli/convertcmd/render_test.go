package convertcmd

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"calq/convert"
	"calq/internal/tooltest"
)

// openTerminal opens a pseudo-terminal: the slave for calq to write to as
// its stderr, the master to read what a user would see.
func openTerminal(t *testing.T) (master, slave *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		tooltest.Unavailable(t, "no pseudo-terminal: %v", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slave.Close(); master.Close() })
	return master, slave
}

// TestConvertTerminalShowsStart: a user at a terminal sees what calq is
// doing from the start ("starting 2 LibreOffice instances"), and the bar
// counts only the files to convert, so files skipped as unchanged in no
// time do not make its first rate absurd.
func TestConvertTerminalShowsStart(t *testing.T) {
	master, slave := openTerminal(t)
	var seen strings.Builder
	got := make(chan struct{})
	go func() {
		defer close(got)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			seen.Write(buf[:n])
			if err != nil || strings.Contains(seen.String(), "calq: 5 files") {
				return
			}
		}
	}()
	r := newConvertRenderer(os.Stdout, slave, false, false)
	r.planned(5, 2)
	r.status("starting 2 LibreOffice instances")
	for _, name := range []string{"a", "b", "c"} {
		r.progress(convert.FileResult{Input: name + ".odt", Output: name + ".pdf", State: convert.StateSkipped, Reason: "unchanged"})
	}
	r.progress(convert.FileResult{Input: "d.odt", Output: "d.pdf", State: convert.StateConverted, Seconds: 1, Backend: "libreoffice"})
	r.progress(convert.FileResult{Input: "e.odt", Output: "e.pdf", State: convert.StateConverted, Seconds: 1, Backend: "libreoffice"})
	r.finish(convert.Summary{Total: 5, Converted: 2, Skipped: 3, Seconds: 2})
	select {
	case <-got:
	case <-time.After(time.Minute):
		t.Fatalf("no summary on the terminal; saw %q", seen.String())
	}
	out := seen.String()
	start := strings.Index(out, "calq: starting 2 LibreOffice instances")
	if start < 0 {
		t.Fatalf("no start-up line on the terminal:\n%q", out)
	}
	if i := strings.Index(out, "(0/2,"); i < 0 || i > start {
		t.Errorf("the bar over the 2 files to convert is not shown before the start-up line:\n%q", out)
	}
	if strings.Contains(out, "/5,") {
		t.Errorf("the bar counts the 3 skipped files:\n%q", out)
	}
	// Every rate shown is at most the 2 files really converted per the
	// time taken, never the skipped files' instant "rate".
	for _, m := range regexp.MustCompile(`([0-9.]+) files/s`).FindAllStringSubmatch(out, -1) {
		if v, _ := strconv.ParseFloat(m[1], 64); v > 100 {
			t.Errorf("absurd rate %s files/s on the terminal:\n%q", m[1], out)
		}
	}
	if !strings.Contains(out, "calq: 5 files: 2 converted, 3 skipped, 0 failed in 2.0s") {
		t.Errorf("no summary line:\n%q", out)
	}
}
