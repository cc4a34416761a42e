package webbench

import (
	"calq/internal/procfs"
	"syscall"
	"time"
)

// groupPids returns the processes of process group pgid, from /proc.
func groupPids(pgid int) []int { return procfs.GroupPids(pgid) }

// pssKiB is process pid's proportional set size, in KiB; 0 when it is
// gone.
func pssKiB(pid int) int64 { return procfs.Pss(pid) >> 10 }

// statFields are the fields of /proc/PID/stat after the command's name.
func statFields(pid int) []string { return procfs.StatFields(pid) }

// selfCPU is the CPU time calq's process has used, user and system, its
// children's excluded.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
