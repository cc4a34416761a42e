package lo

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// groupRSS returns the resident memory, in bytes, of the processes in
// process group pgid, from /proc; 0 where there is no /proc. Scanning
// /proc costs about a millisecond, small against a conversion.
func groupRSS(pgid int) int64 {
	rss, _ := groupScan(pgid)
	return rss
}

// groupScan returns groupRSS and whether a process of the group is
// stopped (SIGSTOP, SIGTSTP, a tracer): it runs no document then.
func groupScan(pgid int) (rss int64, stopped bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	var pages int64
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		group, rss, ok := parseStat(string(b))
		if ok && group == pgid {
			pages += rss
			stopped = stopped || statStopped(string(b))
		}
	}
	return pages * int64(os.Getpagesize()), stopped
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
