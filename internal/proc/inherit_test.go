//go:build linux

package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// sayEnv makes the test binary a stand-in for a calq command that says it
// ran, with its arguments and the re-exec variables it still sees.
const sayEnv = "PROC_TEST_SAY"

func say() int {
	fmt.Printf("ran as calq %q keeper=%q guard=%q helper=%q\n", os.Args[1:], os.Getenv(keeperEnv), os.Getenv(guardEnv), os.Getenv(helperEnv))
	return 0
}

// TestInheritedVariables: the re-exec variables, inherited or set by
// hand, do not turn a command into a keeper (which read stdin to its end
// and exited 0, a silent no-op), a guard (which ran argv[1] in place of
// the command) or a helper (which served its stdin): the command runs as
// itself, and the variables do not reach its children.
func TestInheritedVariables(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Close()
	self := strconv.Itoa(os.Getpid())
	tests := []struct {
		name  string
		env   string
		stdin *os.File
	}{
		{"keeper, stdin /dev/null", keeperEnv + "=" + self, nil},
		{"keeper, stdin a pipe of another inode", keeperEnv + "=1", r},
		{"keeper, empty", keeperEnv + "=", r},
		{"guard with this test as its parent", guardEnv + "=" + self, nil},
		{"guard, garbage", guardEnv + "=x", nil},
		{"helper, stdin /dev/null", helperEnv + "=test-echo:1:" + self, nil},
		{"helper, stdin a pipe of another inode", helperEnv + "=test-echo:1:" + self, r},
		{"helper, garbage", helperEnv + "=x", r},
	}
	for _, tt := range tests {
		cmd := exec.Command(os.Args[0], "/bin/echo", "hijacked")
		cmd.Env = append(os.Environ(), sayEnv+"=1", tt.env)
		if tt.stdin != nil {
			cmd.Stdin = tt.stdin
		}
		out, err := cmd.CombinedOutput()
		want := `ran as calq ["/bin/echo" "hijacked"] keeper="" guard="" helper=""` + "\n"
		if err != nil || string(out) != want {
			t.Errorf("%s: %q, %v; want %q, exit 0", tt.name, out, err, want)
		}
	}
}

// TestGenuineHelpersStillRun: the same binary still becomes a guard and
// a keeper when calq starts them.
func TestGenuineHelpersStillRun(t *testing.T) {
	out, err := Command(t.Context(), Options{}, "sh", "-c", "echo guarded").Output()
	if err != nil || string(out) != "guarded\n" {
		t.Errorf("guarded command: %q, %v; want \"guarded\\n\"", out, err)
	}
	k := NewKeeper()
	defer k.Close()
	var b strings.Builder
	if err := k.Shell(t.Context(), Options{}, "/bin/sh", "echo kept", &b, nil); err != nil || b.String() != "kept\n" {
		t.Errorf("keeper's command: %q, %v; want \"kept\\n\"", b.String(), err)
	}
}
