package convert

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"calq/convert/chromium"
	"calq/internal/tooltest"
)

// TestChromiumCheckMissing: without Chromium, calq doctor says what
// happens to HTML instead and how to install it, as advice.
func TestChromiumCheckMissing(t *testing.T) {
	c := chromiumCheck(context.Background(), "/nonexistent/chromium")
	if c.OK || c.Fatal || c.Name != "Chromium" {
		t.Errorf("got ok %v fatal %v name %q, want a Chromium check that failed, not fatal", c.OK, c.Fatal, c.Name)
	}
	if c.Fix != "apt-get install chromium" {
		t.Errorf("got fix %q, want apt-get install chromium", c.Fix)
	}
	if want := ".html, .htm, .xhtml and .md files go to LibreOffice's HTML import"; !strings.Contains(c.Detail, want) {
		t.Errorf("got detail %q, want one saying %q", c.Detail, want)
	}
}

// TestChromiumCheck: with Chromium installed, calq doctor proves it
// prints a page and names its version and path.
func TestChromiumCheck(t *testing.T) {
	if _, _, err := chromium.Find(""); err != nil {
		tooltest.Unavailable(t, "chromium: %v", err)
	}
	c := chromiumCheck(context.Background(), "")
	want := regexp.MustCompile(`^Chromium [0-9.]+ at /.*: started and printed a one-line page in [0-9.]+ s$`)
	if !c.OK || !want.MatchString(c.Detail) {
		t.Errorf("got ok %v detail %q fix %q, want ok and a detail matching %s", c.OK, c.Detail, c.Fix, want)
	}
}
