package chromium

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"calq/internal/proc"
)

// ErrNotFound is Find's error when no chromium is installed.
var ErrNotFound = errors.New("chromium not found")

// programs are the names Find looks for on PATH, in order.
var programs = []string{"chromium", "chromium-browser"}

// Find locates the chromium executable (binary, or chromium or
// chromium-browser on PATH) and reports its version ("Chromium
// 156.0.8078.108"), without starting a browser. Debian's /usr/bin/chromium
// is a shell script that execs the browser; --version goes through it, as
// the pool's starts do (the script adds the distribution's flags).
func Find(binary string) (path, version string, err error) {
	names := programs
	if binary != "" {
		names = []string{binary}
	}
	for _, name := range names {
		if path, err = exec.LookPath(name); err == nil {
			break
		}
	}
	if err != nil {
		return "", "", fmt.Errorf("%w (looked for %s): %v", ErrNotFound, strings.Join(names, ", "), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := proc.Child(ctx, proc.Options{Grace: time.Second}, path, "--version")
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("%s --version: %w", path, err)
	}
	version = parseVersion(out.String())
	if version == "" {
		return "", "", fmt.Errorf("%s --version: no version in %q", path, out.String())
	}
	return path, version, nil
}

// parseVersion keeps the name and number of chromium's --version line
// ("Chromium 156.0.8078.108 built on Debian GNU/Linux 12 (bookworm)").
func parseVersion(s string) string {
	f := strings.Fields(s)
	for i := 1; i < len(f); i++ {
		if len(f[i]) > 0 && f[i][0] >= '0' && f[i][0] <= '9' {
			return strings.Join(f[:i+1], " ")
		}
	}
	return ""
}

// DefaultBrowsers is the number of browser processes a pool keeps for this
// machine; DefaultTabs the conversions each runs at once.
//
// One browser per 4 cores: a browser already spreads a conversion over
// several processes (the browser's own, a renderer per tab, the GPU and
// network services), so on 2 cores one browser with several tabs
// converts as fast as two browsers (measured, see the package
// documentation) for half the memory; more browsers pay off where there
// are cores to give them.
func DefaultBrowsers() int { return max(1, runtime.NumCPU()/4) }

// DefaultTabs is the conversions a browser runs at once.
func DefaultTabs() int { return 4 }

// DefaultMemoryLimit is the resident memory above which a browser is
// restarted.
func DefaultMemoryLimit() int64 { return 1 << 30 }
