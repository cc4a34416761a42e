package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"calq/convert/chromium"
	"calq/internal/debris"
)

// chromiumCheck proves that Chromium prints a page, as libreOffice
// proves LibreOffice converts: it finds the program (binary, or chromium
// on PATH), starts a one-browser pool and prints a one-line page. It is
// advice, not a failure: without Chromium, .html and .md files go to
// LibreOffice's HTML import and calq serve's /forms/chromium routes
// answer 503.
func chromiumCheck(ctx context.Context, binary string) Check {
	c := Check{Name: "Chromium"}
	path, version, err := chromium.Find(binary)
	if err != nil {
		c.Detail = fmt.Sprintf("%v: .html, .htm, .xhtml and .md files go to LibreOffice's HTML import, and calq serve's /forms/chromium routes answer 503", err)
		c.Fix = "apt-get install chromium"
		return c
	}
	took, err := tryChromium(ctx, path)
	if err != nil {
		c.Detail = fmt.Sprintf("%s at %s did not print a one-line page: %v", version, path, err)
		c.Fix = "run " + path + " --headless --no-sandbox --print-to-pdf=/tmp/x.pdf about:blank as this user to see Chromium's own complaint"
		if errors.Is(err, errTempDir) {
			c.Fix = loFix(errTempDir)
		}
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%s at %s: started and printed a one-line page in %.1f s", version, path, took.Seconds())
	return c
}

// tryChromium starts a one-browser pool of the chromium at path and
// prints a one-line page; it returns the time both took.
func tryChromium(ctx context.Context, path string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", debris.Pattern("doctor", false))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errTempDir, err)
	}
	defer os.RemoveAll(dir)
	page := filepath.Join(dir, "index.html")
	if err := os.WriteFile(page, []byte("<p>calq doctor: a one-line page.</p>\n"), 0o600); err != nil {
		return 0, fmt.Errorf("%w: %w", errTempDir, err)
	}
	start := time.Now()
	p, err := chromium.New(chromium.Config{Binary: path, Browsers: 1, Tabs: 1})
	if err != nil {
		return 0, err
	}
	defer p.Close()
	err = p.PDF(ctx, chromium.Request{URL: "file://" + page, Dir: dir}, chromium.DefaultPDF(), filepath.Join(dir, "calq-doctor.pdf"))
	return time.Since(start), err
}
