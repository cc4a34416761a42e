package chromium

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeCalqEnv makes the test binary a stand-in for calq (see TestMain):
// it converts a page that never gets ready and writes the pids of its
// browser's process group to dir/pids; the value is dir.
const fakeCalqEnv = "CHROMIUM_TEST_FAKE_CALQ"

func fakeCalq(dir string) int {
	p, err := New(Config{Browsers: 1, Tabs: 1, Timeout: 10 * time.Minute})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	page := filepath.Join(dir, "wait.html")
	os.WriteFile(page, []byte("<p>wait</p>"), 0o644)
	go p.PDF(context.Background(), Request{URL: "file://" + page, Dir: dir,
		Load: Load{WaitForExpression: "false", SkipNetworkIdleEvent: true}}, DefaultPDF(), filepath.Join(dir, "out.pdf"))
	for p.slots[0].current() == nil || p.Stats().Busy == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	b := p.slots[0].current()
	var pids []string
	for _, pid := range groupPids(b.cmd.Process.Pid) {
		pids = append(pids, strconv.Itoa(pid))
	}
	os.WriteFile(filepath.Join(dir, "pids.tmp"), []byte(strings.Join(pids, "\n")), 0o644)
	os.Rename(filepath.Join(dir, "pids.tmp"), filepath.Join(dir, "pids"))
	select {}
}

// waitGone waits until none of pids runs (a zombie counts as gone).
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("processes %v to end", pids), func() bool {
		for _, pid := range pids {
			if running(pid) {
				return false
			}
		}
		return true
	})
}

func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	return !strings.HasPrefix(s[strings.LastIndexByte(s, ')')+1:], " Z") && syscall.Kill(pid, 0) == nil
}

// waitFor polls cond every 20 ms for up to a minute: processes start and
// die asynchronously. It bounds a wait; it asserts nothing about time.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}
