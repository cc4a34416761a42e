package servebench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// usage is the processor time (user and system) of this process and of
// the processes it started, as the kernel counts it.
type usage struct {
	// Self is this process's: calq serve's own work, and the bench's
	// HTTP clients beside it.
	Self time.Duration
	// Helpers are the descendants running calq's own executable: the
	// guards around converters and the pdfcpu helpers.
	Helpers time.Duration
	// Converters are the other descendants (LibreOffice, Chromium), the
	// processes they started, and every descendant that has exited.
	Converters time.Duration
}

func (u usage) sub(v usage) usage {
	return usage{Self: u.Self - v.Self, Helpers: u.Helpers - v.Helpers, Converters: u.Converters - v.Converters}
}

// ticks is the unit of /proc/PID/stat's times: USER_HZ, 100 on every
// architecture Linux runs Go on.
const ticks = time.Second / 100

// sampleUsage reads getrusage for this process and /proc for its
// descendants. A descendant that exited counts in its parent's
// children's times once reaped, so nothing is lost but the work of
// processes exiting during the sample.
func sampleUsage() (usage, error) {
	var self, kids syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return usage{}, fmt.Errorf("getrusage: %w", err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids); err != nil {
		return usage{}, fmt.Errorf("getrusage: %w", err)
	}
	u := usage{Self: rusageTime(self), Converters: rusageTime(kids)}
	procs, err := readProcs()
	if err != nil {
		return u, err
	}
	exe, _ := os.Executable()
	for _, p := range descendants(procs, os.Getpid()) {
		u.Converters += p.children
		if link, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(p.pid), "exe")); link == exe && exe != "" {
			u.Helpers += p.own
		} else {
			u.Converters += p.own
		}
	}
	return u, nil
}

func rusageTime(r syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// proc is what sampleUsage needs of /proc/PID/stat.
type proc struct {
	pid, ppid int
	own       time.Duration // utime + stime
	children  time.Duration // cutime + cstime: reaped children's
}

func readProcs() ([]proc, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone since the listing
		}
		p, err := parseStat(pid, b)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// parseStat reads /proc/PID/stat: the command name, in parentheses, may
// hold spaces and parentheses, so the fields are counted after its last
// ')'. ppid is field 4, utime to cstime fields 14 to 17.
func parseStat(pid int, b []byte) (proc, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 15 {
		return proc{}, fmt.Errorf("/proc/%d/stat: %d fields after the name, want at least 15", pid, len(f))
	}
	var n [5]int64
	for k, field := range []int{1, 11, 12, 13, 14} { // ppid, utime, stime, cutime, cstime
		v, err := strconv.ParseInt(string(f[field]), 10, 64)
		if err != nil {
			return proc{}, fmt.Errorf("/proc/%d/stat: field %d: %w", pid, field+3, err)
		}
		n[k] = v
	}
	return proc{pid: pid, ppid: int(n[0]), own: time.Duration(n[1]+n[2]) * ticks, children: time.Duration(n[3]+n[4]) * ticks}, nil
}

// descendants returns the processes below root.
func descendants(procs []proc, root int) []proc {
	kids := map[int][]proc{}
	for _, p := range procs {
		kids[p.ppid] = append(kids[p.ppid], p)
	}
	var out []proc
	next := []int{root}
	for len(next) > 0 {
		pid := next[len(next)-1]
		next = next[:len(next)-1]
		for _, k := range kids[pid] {
			out = append(out, k)
			next = append(next, k.pid)
		}
	}
	return out
}
