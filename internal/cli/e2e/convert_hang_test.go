package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/internal/tooltest"
)

// TestConvertTermWhileHashing: SIGTERM while calq copies and hashes a
// huge input stops it there: the read honours the run's context. The
// input is a sparse 1 TiB file, which would take many minutes to read.
func TestConvertTermWhileHashing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	f, err := os.Create(filepath.Join(in, "huge.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		tooltest.Unavailable(t, "no sparse 1 TiB file here: %v", err)
	}
	f.Close()
	tmp := t.TempDir()
	cmd := calqCmd(t, "convert", "--db", filepath.Join(dir, "j.db"), "-o", filepath.Join(dir, "out"), in)
	cmd.Env = append(cmd.Env, convertEnv(tmp)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	// Wait until calq has read 256 MiB: it is hashing the input (when
	// planning, or while copying it aside).
	deadline := time.Now().Add(2 * time.Minute)
	for readBytes(cmd.Process.Pid) < 256<<20 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("calq did not start reading the input in 2 minutes:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("calq ignored SIGTERM while hashing:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130 (interrupted)\n%s", code, stderr.String())
	}
	if got := stderr.String(); !strings.Contains(got, "1 cancelled") || strings.Contains(got, "failed [") {
		t.Errorf("want the file cancelled, not failed:\n%s", got)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "calq-convert-*")); len(left) > 0 {
		t.Errorf("work directory left behind: %v", left)
	}
}

// readBytes is how much process pid has read (rchar of /proc/PID/io).
func readBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
