package chromium

import "errors"

// ErrNotFound is Find's error when no chromium is installed.
var ErrNotFound = errors.New("chromium not found")

// Find locates the chromium executable (binary, or chromium or
// chromium-browser on PATH) and reports its version ("Chromium
// 156.0.8078.108"), without starting a browser.
func Find(binary string) (path, version string, err error) {
	return "", "", ErrNotFound
}

// DefaultBrowsers is the number of browser processes a pool keeps for this
// machine; DefaultTabs the conversions each runs at once.
func DefaultBrowsers() int { return 1 }

// DefaultTabs is the conversions a browser runs at once.
func DefaultTabs() int { return 4 }

// DefaultMemoryLimit is the resident memory above which a browser is
// restarted.
func DefaultMemoryLimit() int64 { return 1 << 30 }
