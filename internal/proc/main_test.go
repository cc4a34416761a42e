package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCalqEnv makes the test binary a stand-in for calq that starts a
// command under a guard and waits to be killed; the value is its directory.
const fakeCalqEnv = "PROC_TEST_FAKE_CALQ"

func TestMain(m *testing.M) {
	MaybeRunGuard()
	if os.Getenv(sayEnv) != "" {
		os.Exit(say())
	}
	if dir := os.Getenv(fakeCalqEnv); dir != "" {
		os.Exit(fakeCalq(dir))
	}
	if dir := os.Getenv(fakeKeeperCalqEnv); dir != "" {
		os.Exit(fakeKeeperCalq(dir))
	}
	if dir := os.Getenv(fakeHelperCalqEnv); dir != "" {
		os.Exit(fakeHelperCalq(dir))
	}
	// Under -race every exit with status 0 sleeps 1 s to let reports
	// drain; each guard would pay it.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

// fakeCalq runs a shell with a background grandchild, writing the pids of
// guard, shell and grandchild to dir/pids.
func fakeCalq(dir string) int {
	cmd := Command(context.Background(), Options{Dir: dir}, "sh", "-c",
		"sleep 300 & echo $! >> pids; echo $$ >> pids; exec sleep 300")
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := appendPid(filepath.Join(dir, "pids"), cmd.Process.Pid); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd.Wait()
	return 1
}

func appendPid(name string, pid int) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, pid)
	return errors.Join(err, f.Close())
}
