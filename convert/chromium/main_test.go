package chromium

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"calq/internal/proc"
	"calq/internal/tooltest"
)

func TestMain(m *testing.M) {
	proc.MaybeRunGuard()
	if dir := os.Getenv(fakeCalqEnv); dir != "" {
		os.Exit(fakeCalq(dir))
	}
	// Under -race every exit with status 0 sleeps 1 s; each guard would
	// pay it.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	code := m.Run()
	shared.close()
	os.Exit(code)
}

// sharedPool is one pool for the tests that need none of their own,
// started on first use and closed by TestMain.
type sharedPool struct {
	once sync.Once
	p    *Pool
	err  error
}

var shared sharedPool

func (s *sharedPool) get(t *testing.T) *Pool {
	t.Helper()
	requireChromium(t)
	s.once.Do(func() { s.p, s.err = New(Config{Browsers: 1, Tabs: 4}) })
	if s.err != nil {
		t.Fatalf("New: %v", s.err)
	}
	return s.p
}

func (s *sharedPool) close() {
	if s.p != nil {
		s.p.Close()
	}
}

func requireChromium(t testing.TB) {
	t.Helper()
	if _, _, err := Find(""); err != nil {
		tooltest.Unavailable(t, "%v", err)
	}
}

// page writes an HTML page named name into dir and returns its file:// URL.
func writePage(t testing.TB, dir, name, html string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// pdfInfo is what pdfinfo says of a PDF.
type pdfInfo struct {
	pages         int
	width, height float64 // points
}

var sizeRE = regexp.MustCompile(`Page size:\s+([\d.]+) x ([\d.]+) pts`)

func readPDFInfo(t testing.TB, path string) pdfInfo {
	t.Helper()
	tooltest.Require(t, "pdfinfo")
	out, err := exec.Command("pdfinfo", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo %s: %v\n%s", path, err, out)
	}
	var i pdfInfo
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(line, "Pages:"); ok {
			i.pages, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if m := sizeRE.FindStringSubmatch(line); m != nil {
			i.width, _ = strconv.ParseFloat(m[1], 64)
			i.height, _ = strconv.ParseFloat(m[2], 64)
		}
	}
	return i
}

// pdfText is the text pdftotext finds on the PDF's pages.
func pdfText(t testing.TB, path string) string {
	t.Helper()
	tooltest.Require(t, "pdftotext")
	out, err := exec.Command("pdftotext", "-layout", path, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext %s: %v\n%s", path, err, out)
	}
	return string(out)
}
