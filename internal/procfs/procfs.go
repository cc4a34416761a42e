// Package procfs reads what calq needs of Linux's /proc about other
// processes: the members of a process group and their proportional
// memory. Where there is no /proc, a group has no members and a process
// no memory.
package procfs

import (
	"os"
	"strconv"
	"strings"
)

// GroupPids returns the live processes (zombies left out) of process
// group pgid, from each /proc/PID/stat.
func GroupPids(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := strconv.Itoa(pgid)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := StatFields(pid); len(f) > 2 && f[0] != "Z" && f[2] == want {
			pids = append(pids, pid)
		}
	}
	return pids
}

// StatFields are the fields of /proc/PID/stat after the command's name
// (which may hold spaces and parentheses): f[0] is the state, f[2] the
// process group; nil when the process is gone.
func StatFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// Pss is process pid's proportional set size in bytes, from
// /proc/PID/smaps_rollup: the pages it shares with others (a binary,
// fonts, shared memory) count for their share, so the Pss of a group's
// processes add up to what the group holds. 0 when it is gone.
func Pss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}
