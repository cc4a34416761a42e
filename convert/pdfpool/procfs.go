package pdfpool

import (
	"bytes"
	"os"
	"strconv"
)

// rss is process pid's resident memory in bytes, from /proc; 0 when it
// cannot be read.
func rss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// peakRSS is process pid's peak resident memory (VmHWM) in bytes since
// its start or resetPeak; 0 when it cannot be read.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("VmHWM:"))
	if !ok {
		return 0
	}
	f := bytes.Fields(rest)
	if len(f) < 1 {
		return 0
	}
	kb, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}

// resetPeak sets process pid's peak resident memory to what it holds
// now (Linux 4.0 and later; a no-op where it cannot).
func resetPeak(pid int) {
	os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0)
}
