package lo

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// TestGroupWatch: a watch re-reads its known members between full scans
// of /proc, finds a new member at the next full scan, and drops one
// that exits.
func TestGroupWatch(t *testing.T) {
	leader := startLeader(t)
	pgid := leader.Process.Pid
	g := &groupWatch{pgid: pgid}
	if g.scan(); !slices.Equal(g.pids, []int{pgid}) {
		t.Fatalf("first scan: members %v; want the leader", g.pids)
	}
	// Just after its start the process may still be exec'ing, with no
	// resident pages yet.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if rss, _ := g.scan(); rss > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("rss stays 0")
		}
	}
	g.full = time.Now() // the next scans re-read the known members only
	member := exec.Command("sleep", "30")
	member.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if err := member.Start(); err != nil {
		t.Fatal(err)
	}
	defer member.Process.Kill()
	g.scan()
	if slices.Contains(g.pids, member.Process.Pid) {
		t.Error("a new member was found before the next full scan: the scan read all of /proc")
	}
	g.full = time.Now().Add(-fullScanEvery)
	g.scan()
	if !slices.Contains(g.pids, member.Process.Pid) {
		t.Errorf("full scan: members %v, want %d among them", g.pids, member.Process.Pid)
	}
	member.Process.Kill()
	member.Wait()
	g.scan()
	if slices.Contains(g.pids, member.Process.Pid) {
		t.Errorf("members %v after %d exited", g.pids, member.Process.Pid)
	}
	if _, stopped := g.scan(); stopped {
		t.Error("stopped, want running")
	}
	leader.Process.Signal(syscall.SIGSTOP)
	defer leader.Process.Signal(syscall.SIGCONT)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, stopped := g.scan(); stopped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the leader was SIGSTOPped: want stopped")
		}
	}
}

// TestGroupWatchFullScans: over ten seconds of memory samples (a slow
// conversion's), a watch reads all of /proc at most twice; the rest
// re-read its known members. A full scan costs a stat read of every
// process on the machine, and was calq serve's largest cost of its own
// per conversion on a busy machine when it came every second.
func TestGroupWatchFullScans(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &groupWatch{pgid: syscall.Getpgrp()}
		for range 10 * time.Second / memorySampleEvery {
			g.scan()
			time.Sleep(memorySampleEvery)
		}
		if g.fullScans > 2 {
			t.Errorf("got %d full scans of /proc in 10s of samples, want at most 2", g.fullScans)
		}
	})
}

// TestGroupWatchKeepsFiles: between full scans a watch re-reads a
// member's stat file it keeps open, drops it when the member exits,
// and keeps none after close.
func TestGroupWatchKeepsFiles(t *testing.T) {
	leader := startLeader(t)
	pid := leader.Process.Pid
	g := &groupWatch{pgid: pid}
	g.scan() // full
	g.scan()
	f := g.files[pid]
	if f == nil {
		t.Fatalf("after a sample, no stat file kept for member %d", pid)
	}
	g.scan()
	if g.files[pid] != f || !slices.Equal(g.pids, []int{pid}) {
		t.Errorf("the next sample: file %p, members %v; want the same file %p and member %d", g.files[pid], g.pids, f, pid)
	}
	leader.Process.Kill()
	leader.Wait()
	g.scan()
	if len(g.pids) != 0 || len(g.files) != 0 {
		t.Errorf("after the member exited: members %v, %d files kept; want none", g.pids, len(g.files))
	}
	g.close()
	g.full = time.Now()
	g.pids = []int{os.Getpid()} // a process the closed watch reads afresh
	g.pgid = syscall.Getpgrp()
	g.scan()
	if len(g.files) != 0 {
		t.Errorf("after close: %d files kept, want none", len(g.files))
	}
}

// startLeader starts a process leading a group of its own, killed at
// the test's end.
func startLeader(t *testing.T) *exec.Cmd {
	t.Helper()
	leader := exec.Command("sleep", "30")
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { leader.Process.Kill(); leader.Wait() })
	return leader
}
