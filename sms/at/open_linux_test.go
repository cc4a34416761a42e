package at

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY returns the master of a new pseudo-terminal and its slave's path.
func openPTY(t *testing.T) (*os.File, string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		if os.Getenv("CALQ_REQUIRE_TOOLS") == "1" {
			t.Fatalf("no pseudo-terminals (CALQ_REQUIRE_TOOLS=1): %v", err)
		}
		t.Skipf("no pseudo-terminals: %v", err) // a failure under CALQ_REQUIRE_TOOLS=1, above
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlockpt: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("ptsname: %v", e)
	}
	return master, fmt.Sprintf("/dev/pts/%d", n)
}

// TestOpenPTY: Open works on a pseudo-terminal through go.bug.st/serial
// (which must not touch modem-status lines there) and a command round-trips.
func TestOpenPTY(t *testing.T) {
	master, slave := openPTY(t)
	m, err := Open(context.Background(), slave, 0)
	if err != nil {
		t.Fatalf("Open(%s): %v", slave, err)
	}
	defer m.Close()
	go func() {
		r := bufio.NewReader(master)
		if cmd, err := r.ReadString('\r'); err == nil && cmd == "AT+CGMI\r" {
			fmt.Fprint(master, "AT+CGMI\r\r\nemu\r\n\r\nOK\r\n")
		}
	}()
	lines, err := m.Command(context.Background(), "AT+CGMI")
	if err != nil || len(lines) != 1 || lines[0] != "emu" {
		t.Errorf("Command(AT+CGMI) over a pty = %q, %v, want [emu]", lines, err)
	}
}
