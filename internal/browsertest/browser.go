// Package browsertest drives a headless chromium for calq's browser tests,
// over chromedp.
//
// [New] starts one browser for a test (about a second, and a chromium
// process with its helpers until the test ends); [Browser.Tab] opens a tab
// whose viewport is 1280×800 and whose context carries a deadline, so that
// every helper of the package (Navigate, Fill, SetFiles, Click, WaitText,
// Text, Attribute, Screenshot...) fails instead of hanging. [Dialogs]
// records and dismisses the JavaScript dialogs of a tab: XSS tests assert
// that none opened.
//
// A test without a browser on the machine is skipped, or fails under
// CALQ_REQUIRE_TOOLS=1 (see internal/tooltest). A Browser is safe for
// concurrent use by the tests that share it, each with its own tab; one tab
// (one context from Tab) must be driven by one goroutine at a time.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"calq/internal/tooltest"
)

// Viewport is the size, in CSS pixels, of every tab's viewport and so of
// every screenshot.
const (
	ViewportWidth  = 1280
	ViewportHeight = 800
)

// TabTimeout bounds everything done in one tab, unless the test's own
// deadline comes first. It is generous because the machines that run the
// tests under -race are small and shared.
const TabTimeout = 2 * time.Minute

// Programs are the names under which New looks for a browser, in order.
var Programs = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Browser is one headless chromium process, stopped when its test ends.
type Browser struct {
	ctx context.Context // the chromedp context of the browser's first tab
}

// New starts a headless chromium for t and stops it at t.Cleanup. Without
// a browser on PATH the test is skipped, or fails under
// CALQ_REQUIRE_TOOLS=1. The browser runs with a temporary profile, a
// 1280×800 window, and without its sandbox only when running as root
// (chromium refuses to start otherwise).
func New(t testing.TB) *Browser {
	t.Helper()
	path := findBrowser(t)
	if path == "" {
		return nil
	}
	dir := t.TempDir()
	// The browser's output goes to a file (safe for its goroutine and
	// ours), shown when the test fails.
	out, err := os.Create(filepath.Join(dir, "chromium.log"))
	if err != nil {
		t.Fatalf("starting a browser: %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(ViewportWidth, ViewportHeight),
		chromedp.CombinedOutput(out),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		stop(ctx)
		cancel()
		allocCancel()
		out.Close()
		if t.Failed() {
			t.Logf("chromium's output:\n%s", readLog(out.Name()))
		}
	})
	// The first Run starts the browser; it must not carry a timeout, which
	// would stop the browser when it expires.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v\n%s", path, err, readLog(out.Name()))
	}
	return &Browser{ctx: ctx}
}

// findBrowser returns the path of the first of Programs on PATH, or ends
// the test as tooltest.Require does.
func findBrowser(t testing.TB) string {
	t.Helper()
	for _, name := range Programs {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	tooltest.Unavailable(t, "no browser installed (looked for %v on PATH)", Programs)
	return ""
}

// readLog returns the browser's output, without the lines about D-Bus
// (absent in containers, and harmless).
func readLog(path string) string {
	data, _ := os.ReadFile(path) // a missing log is shown empty
	var keep []string
	for line := range strings.Lines(string(data)) {
		if !strings.Contains(line, "dbus") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

// stop closes the browser gracefully, giving it a few seconds.
func stop(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = chromedp.Cancel(ctx) // the caller's cancel ends whatever is left
}

// Tab opens a new tab with a 1280×800 viewport and returns its context,
// which every helper of this package takes. The context ends after
// TabTimeout or at the test's deadline, whichever comes first; the tab is
// closed at t.Cleanup. The page's console messages and uncaught exceptions
// are logged to t.
func (b *Browser) Tab(t testing.TB) context.Context {
	t.Helper()
	tabCtx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	// The tab's first Run opens it; like the browser's, it carries no
	// timeout.
	if err := chromedp.Do(tabCtx, chromedp.EmulateViewport(ViewportWidth, ViewportHeight)); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	watch(t, tabCtx, chromedp.Console, func(_ context.Context, m chromedp.ConsoleMessage) {
		t.Logf("browser console: %s", m)
	})
	deadline := time.Now().Add(TabTimeout)
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if td, ok := d.Deadline(); ok && td.Before(deadline) {
			deadline = td.Add(-5 * time.Second) // room to report the failure
		}
	}
	ctx, cancelTimeout := context.WithDeadline(tabCtx, deadline)
	t.Cleanup(cancelTimeout)
	return ctx
}

// PhoneWidth is the widest viewport that SetViewport emulates as a phone.
const PhoneWidth = 600

// SetViewport makes the tab's viewport width×height CSS pixels; up to
// PhoneWidth wide, as a phone's: mobile (the page's meta viewport
// applies), portrait, with touch.
func SetViewport(ctx context.Context, width, height int) error {
	var opts []chromedp.EmulateViewportOption
	if width <= PhoneWidth {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulatePortrait, chromedp.EmulateTouch)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height), opts...)); err != nil {
		return fmt.Errorf("setting the viewport to %d×%d: %w", width, height, err)
	}
	return nil
}
