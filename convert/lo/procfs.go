package lo

import (
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// groupRSS returns the resident memory, in bytes, of the processes in
// process group pgid, from /proc; 0 where there is no /proc. It scans
// all of /proc: see groupWatch for the scans of a running instance.
func groupRSS(pgid int) int64 {
	rss, _, _ := groupScan(pgid)
	return rss
}

// groupScan returns groupRSS, whether a process of the group is stopped
// (SIGSTOP, SIGTSTP, a tracer: it runs no document then), and the
// group's processes.
func groupScan(pgid int) (rss int64, stopped bool, pids []int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false, nil
	}
	var pages int64
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, stop, ok := memberStat(pid, pgid)
		if ok {
			pages += p
			stopped = stopped || stop
			pids = append(pids, pid)
		}
	}
	return pages * int64(os.Getpagesize()), stopped, pids
}

// memberStat reads process pid's resident pages and whether it is
// stopped, when it is in group pgid.
func memberStat(pid, pgid int) (pages int64, stopped, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false, false
	}
	group, rss, ok := parseStat(string(b))
	if !ok || group != pgid {
		return 0, false, false
	}
	return rss, statStopped(string(b)), true
}

// fullScanEvery is how often a groupWatch scans all of /proc for new
// processes of its group; between, it reads its known members' stat
// alone. A full scan reads every process's stat: 1-5 ms on a machine
// with a hundred processes or more. Once a second it was still the
// largest part of calq serve's own CPU per conversion on a busy machine
// (a slow conversion sees more of them), so a process that joins an
// instance's group late (LibreOffice starts none in normal work; its
// memory is soffice.bin's, a known member from the first scan) counts
// toward the memory limit within 10 s.
const fullScanEvery = 10 * time.Second

// groupWatch samples one instance's process group: its memory and
// whether it is stopped. A process that joins the group is seen at the
// next full scan, within fullScanEvery. It keeps its known members'
// stat files open and re-reads them in place (one pread a member, not an
// open, a read and a close): a sample costs a few syscalls, and an open
// file names its process, not a PID that another may reuse.
type groupWatch struct {
	mu   sync.Mutex
	pgid int
	pids []int     // the members the last scans found
	full time.Time // the last full scan
	// fullScans counts the full scans, for tests.
	fullScans int
	files     map[int]*os.File // the members' open stat files
	closed    bool             // close was called: no file is kept
	buf       [1024]byte
}

func (g *groupWatch) scan() (rss int64, stopped bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.pids) == 0 || time.Since(g.full) >= fullScanEvery {
		rss, stopped, g.pids = groupScan(g.pgid)
		g.full = time.Now()
		g.fullScans++
		g.forget()
		return rss, stopped
	}
	var pages int64
	live := g.pids[:0]
	for _, pid := range g.pids {
		if p, stop, ok := g.member(pid); ok {
			pages += p
			stopped = stopped || stop
			live = append(live, pid)
		}
	}
	g.pids = live
	g.forget()
	return pages * int64(os.Getpagesize()), stopped
}

// member is memberStat through the member's kept stat file.
func (g *groupWatch) member(pid int) (pages int64, stopped, ok bool) {
	f := g.files[pid]
	if f == nil && !g.closed {
		var err error
		if f, err = os.Open("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil {
			return 0, false, false
		}
		if g.files == nil {
			g.files = map[int]*os.File{}
		}
		g.files[pid] = f
	}
	if f == nil {
		return memberStat(pid, g.pgid)
	}
	n, err := f.ReadAt(g.buf[:], 0)
	if n == 0 || err != nil && !errors.Is(err, io.EOF) {
		return 0, false, false // gone: forget drops its file
	}
	stat := string(g.buf[:n])
	group, rss, ok := parseStat(stat)
	if !ok || group != g.pgid {
		return 0, false, false
	}
	return rss, statStopped(stat), true
}

// forget closes the files of processes that are no longer members.
func (g *groupWatch) forget() {
	for pid, f := range g.files {
		if !slices.Contains(g.pids, pid) {
			f.Close()
			delete(g.files, pid)
		}
	}
}

// close closes the kept files: the group is gone. Later scans read
// /proc afresh.
func (g *groupWatch) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for _, f := range g.files {
		f.Close()
	}
	g.files = nil
}

func (g *groupWatch) rss() int64 {
	rss, _ := g.scan()
	return rss
}

// statStopped says whether the /proc/PID/stat text is of a stopped
// process (state T, or t when traced).
func statStopped(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	f := strings.Fields(stat[i+1:])
	return i >= 0 && len(f) > 0 && (f[0] == "T" || f[0] == "t")
}

// parseStat returns the process group and resident pages from the text
// of /proc/PID/stat. The command name, in parentheses, may hold spaces
// and parentheses: fields are counted from the last ')'.
func parseStat(stat string) (pgrp int, rss int64, ok bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state): pgrp is field 5, rss field 24.
	if len(f) < 22 {
		return 0, 0, false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	rss, err2 := strconv.ParseInt(f[21], 10, 64)
	return pgrp, rss, err1 == nil && err2 == nil
}

// killGroup SIGKILLs process group pgid. The group outlives its leader
// while members remain, so this reaches soffice.bin even when the guard
// or the soffice wrapper has gone.
func killGroup(pgid int) {
	if pgid > 0 {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// marked returns the pids of the processes with arg among their
// arguments, from /proc.
func marked(arg string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(b), "\x00") {
			if a == arg {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// killMarked SIGKILLs every process started with -env:UserInstallation=u:
// a profile belongs to one instance, so whatever still runs with it is a
// straggler of that instance.
func killMarked(u string) {
	for _, pid := range marked(profileArg(u)) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func profileArg(u string) string { return "-env:UserInstallation=" + u }

// isBin reports whether pid is a live soffice.bin.
func isBin(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return strings.Contains(s, "(soffice.bin)") && i >= 0 && !strings.HasPrefix(s[i+1:], " Z")
}

// pgidOf returns pid's process group, or -1.
func pgidOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	pgrp, _, ok := parseStat(string(b))
	if !ok {
		return -1
	}
	return pgrp
}
