//go:build linux

package proc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The test binary's helpers: echo answers each line with the line and
// what fd 1 shows (a library's print must not reach calq), and block
// answers nothing until killed.
func init() {
	RegisterHelper("test-echo", func(in io.Reader, out io.Writer) int {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			fmt.Println("to stdout, which is stderr in a helper")
			fmt.Fprintf(out, "%s %s\n", sc.Text(), os.Getenv(helperEnv))
		}
		return 3
	})
	RegisterHelper("test-block", func(in io.Reader, out io.Writer) int {
		fmt.Fprintln(out, "ready")
		select {}
	})
}

// TestHelperServes: a helper answers on its own pipe, sees no variable of
// the protocol, prints elsewhere than into it, and exits with its body's
// status at the end of its input.
func TestHelperServes(t *testing.T) {
	var stderr strings.Builder
	h, err := StartHelper("test-echo", &stderr) // read once the helper is reaped
	if err != nil {
		t.Fatal(err)
	}
	defer h.Kill()
	r := bufio.NewReader(h.Out)
	for _, line := range []string{"one", "two"} {
		fmt.Fprintln(h.In, line)
		got, err := r.ReadString('\n')
		if want := line + " \n"; got != want || err != nil {
			t.Errorf("reply %q, %v; want %q", got, err, want)
		}
	}
	h.In.Close()
	<-h.Exited()
	if got := h.State().ExitCode(); got != 3 {
		t.Errorf("exit status %d, want 3", got)
	}
	h.Kill()
	if got := strings.Count(stderr.String(), "to stdout"); got != 2 {
		t.Errorf("the helper's prints on stderr: %d, want 2 (%q)", got, stderr.String())
	}
}

// TestHelperKill: Kill ends a helper busy for ever, and reaps it.
func TestHelperKill(t *testing.T) {
	h, err := StartHelper("test-block", nil)
	if err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(h.Out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	h.Kill()
	ws := h.State().Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("helper ended %v, want killed by SIGKILL", h.State())
	}
	if alive(h.Pid) {
		t.Errorf("helper %d still alive after Kill", h.Pid)
	}
}

// TestUnknownHelper: a name never registered is an error, not a start.
func TestUnknownHelper(t *testing.T) {
	if _, err := StartHelper("no-such-helper", nil); err == nil || !strings.Contains(err.Error(), `no helper "no-such-helper"`) {
		t.Errorf("StartHelper(no-such-helper): %v, want an error naming it", err)
	}
}

// fakeHelperCalqEnv makes the test binary a stand-in for calq that starts
// a blocked helper, writes its pid to dir/pids and waits to be killed.
const fakeHelperCalqEnv = "PROC_TEST_FAKE_HELPER_CALQ"

func fakeHelperCalq(dir string) int {
	h, err := StartHelper("test-block", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	bufio.NewReader(h.Out).ReadString('\n')
	if err := appendPid(filepath.Join(dir, "pids"), h.Pid); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	select {}
}

// TestHelperDiesWithCalq: a helper busy for ever dies with calq killed
// by SIGKILL.
func TestHelperDiesWithCalq(t *testing.T) {
	dir := t.TempDir()
	calq := startFakeCalq(t, fakeHelperCalqEnv, dir)
	pids := waitPids(t, dir, 1)
	calq.Process.Kill()
	calq.Wait()
	waitGone(t, pids)
}
