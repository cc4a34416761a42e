//go:build linux

package proc

import (
	"strings"
	"testing"
)

// TestMaxShellLine: a line of MaxShellLine bytes runs under a guard and
// through the keeper, the gate included; MAX_ARG_STRLEN refuses one byte
// more than the room the gate leaves.
func TestMaxShellLine(t *testing.T) {
	if len(gate) > 64 {
		t.Fatalf("the gate is %d bytes; MaxShellLine leaves room for 64", len(gate))
	}
	line := ": " + strings.Repeat("x", MaxShellLine-2)
	if err := Command(t.Context(), Options{}, "sh", "-c", line).Run(); err != nil {
		t.Errorf("a line of %d bytes under a guard: %v", len(line), err)
	}
	k := NewKeeper()
	defer k.Close()
	if err := k.Shell(t.Context(), Options{}, "/bin/sh", line, nil, nil); err != nil {
		t.Errorf("a line of %d bytes through the keeper: %v", len(line), err)
	}
	over := line + strings.Repeat("x", 64+1)
	if err := Command(t.Context(), Options{}, "sh", "-c", over).Run(); err == nil {
		t.Errorf("a line of %d bytes ran; the kernel's limit is 131071", len(over))
	}
}
