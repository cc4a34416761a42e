package convert

import (
	"context"
	"errors"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/convert/pdf"
	"calq/internal/exitcode"
	"calq/internal/tooltest"
	"calq/sched/journal"
)

// testdata is the repository's testdata/convert.
var testdata = filepath.Join("..", "testdata", "convert")

// copyFiles copies named files of testdata/convert into a new directory.
func copyFiles(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		src, err := os.Open(filepath.Join(testdata, n))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(dir, filepath.Base(n)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
	return dir
}

// collect runs a conversion and returns its results by input base name.
func collect(t *testing.T, o Options) (Summary, map[string]FileResult, error) {
	t.Helper()
	var mu sync.Mutex
	got := map[string]FileResult{}
	o.Progress = func(f FileResult) {
		mu.Lock()
		got[filepath.Base(f.Input)] = f
		mu.Unlock()
	}
	// The default limits (60 s a file, 60 s for LibreOffice to start)
	// are for a machine doing one thing; CI runs this package beside
	// the others with both cores busy, where a small document once took
	// longer. The limits themselves have their own tests.
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.LibreOffice.StartTimeout == 0 {
		o.LibreOffice.StartTimeout = 3 * time.Minute
	}
	sum, err := Run(context.Background(), o)
	return sum, got, err
}

// noLeftovers fails if a temporary file is left under dir.
func noLeftovers(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".calq-part-") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

// TestRunMixed converts good files of every route and rejects the bad ones
// with their reasons; the batch goes on around them.
func TestRunMixed(t *testing.T) {
	tooltest.Require(t, "soffice")
	in := copyFiles(t, "sample_3.docx", "SampleSS.xls", "SampleSS.xlsx", "testTIFF_multipage.tif", "pages_3.pdf",
		"testGIF.gif", "broken/random-bytes.docx", "broken/zero-bytes.docx", "testPassword4Spaces.pdf")
	out := filepath.Join(t.TempDir(), "out")
	sum, got, err := collect(t, Options{Inputs: []string{in}, Out: out})
	if !errors.Is(err, exitcode.ErrPartial) {
		t.Errorf("Run: %v, want a partial failure", err)
	}
	if sum.Total != 9 || sum.Converted != 6 || sum.Failed != 3 {
		t.Errorf("summary %+v, want 9 files: 6 converted, 3 failed", sum)
	}
	pages := map[string]struct {
		out   string
		pages int
	}{
		"sample_3.docx": {"sample_3.pdf", 1}, "SampleSS.xls": {"SampleSS.xls.pdf", 2}, "SampleSS.xlsx": {"SampleSS.xlsx.pdf", 2},
		"testTIFF_multipage.tif": {"testTIFF_multipage.pdf", 2}, "pages_3.pdf": {"pages_3.pdf", 3}, "testGIF.gif": {"testGIF.pdf", 1},
	}
	for name, want := range pages {
		r := got[name]
		if r.State != StateConverted || r.Output != filepath.Join(out, want.out) {
			t.Errorf("%s: %+v, want converted to %s", name, r, want.out)
			continue
		}
		info, err := pdf.Inspect(r.Output, "")
		if err != nil || info.Pages != want.pages {
			t.Errorf("%s: %d pages, %v; want %d", name, info.Pages, err, want.pages)
		}
	}
	for name, reason := range map[string]string{"random-bytes.docx": "not a Word document", "zero-bytes.docx": "empty",
		"testPassword4Spaces.pdf": "password"} {
		r := got[name]
		if r.State != StateFailed || !strings.Contains(r.Reason, reason) {
			t.Errorf("%s: %+v, want failed with a reason saying %q", name, r, reason)
		}
		if _, err := os.Stat(r.Output); err == nil {
			t.Errorf("%s: an output exists for a rejected file", name)
		}
	}
	noLeftovers(t, out)
}

// TestRunIncremental: a second run skips what is done; a changed file, a
// deleted PDF and --force convert again.
func TestRunIncremental(t *testing.T) {
	in := copyFiles(t, "testPNG.png", "pages_3.pdf", "testJPEG_EXIF.jpg")
	out := filepath.Join(t.TempDir(), "out")
	jn, err := journal.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer jn.Close()
	o := Options{Inputs: []string{in}, Out: out, Journal: jn}
	steps := []struct {
		name      string
		before    func()
		force     bool
		converted int
	}{
		{"first run", func() {}, false, 3},
		{"nothing changed", func() {}, false, 0},
		{"a changed input", func() { writePNG(t, filepath.Join(in, "testPNG.png")) }, false, 1},
		{"a deleted PDF", func() { os.Remove(filepath.Join(out, "testPNG.pdf")) }, false, 1},
		{"--force", func() {}, true, 3},
	}
	for _, s := range steps {
		s.before()
		o.Force = s.force
		sum, _, err := collect(t, o)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if sum.Converted != s.converted || sum.Converted+sum.Skipped+sum.Failed != 3 {
			t.Errorf("%s: %+v, want %d converted", s.name, sum, s.converted)
		}
	}
}

// writePNG writes a small new PNG at path.
func writePNG(t *testing.T, path string) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 20, 10))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// TestRunPostAndMerge: watermark, metadata and encryption reach every PDF;
// with --merge, the merged file gets them and has every page.
func TestRunPostAndMerge(t *testing.T) {
	in := copyFiles(t, "testPNG.png", "pages_3.pdf")
	out := filepath.Join(t.TempDir(), "out")
	post := pdf.Post{Watermark: &pdf.Watermark{Text: "CONFIDENTIAL"}, Metadata: &pdf.Metadata{Title: "Quarterly"},
		Encrypt: &pdf.Encryption{OwnerPassword: "owner", UserPassword: "user"}}
	if _, _, err := collect(t, Options{Inputs: []string{in}, Out: out, Post: post}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(out, "pages_3.pdf")
	if _, err := pdf.Inspect(p, ""); !errors.Is(err, pdf.ErrEncrypted) {
		t.Errorf("Inspect without a password: %v, want ErrEncrypted", err)
	}
	info, err := pdf.Inspect(p, "user")
	if err != nil || !info.AES256 || info.Pages != 3 || info.Title != "Quarterly" {
		t.Errorf("Inspect: %+v, %v; want AES-256, 3 pages, the title", info, err)
	}
	if text, err := pdf.Text(p, "owner"); err != nil || !strings.Contains(text, "CONFIDENTIAL") {
		t.Errorf("Text: %v; want the watermark in it", err)
	}
	merged := filepath.Join(t.TempDir(), "all.pdf")
	sum, _, err := collect(t, Options{Inputs: []string{in}, Out: filepath.Join(t.TempDir(), "o2"), Merge: merged,
		Post: pdf.Post{Metadata: &pdf.Metadata{Title: "All"}}})
	if err != nil || sum.Merged != merged {
		t.Fatalf("merge: %+v, %v", sum, err)
	}
	if info, err := pdf.Inspect(merged, ""); err != nil || info.Pages != 4 || info.Title != "All" {
		t.Errorf("merged: %+v, %v; want 4 pages titled All", info, err)
	}
}

// TestRunRestrictedPDF: a PDF encrypted with only an owner password opens
// without one, so it passes through (still restricted) rather than being
// rejected as password-protected.
func TestRunRestrictedPDF(t *testing.T) {
	in := copyFiles(t, "pages_3.pdf")
	restricted := filepath.Join(in, "restricted.pdf")
	if err := pdf.Apply(context.Background(), filepath.Join(in, "pages_3.pdf"), restricted,
		pdf.Post{Encrypt: &pdf.Encryption{OwnerPassword: "owner"}}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(in, "pages_3.pdf"))
	sum, got, err := collect(t, Options{Inputs: []string{in}, Out: filepath.Join(t.TempDir(), "out")})
	if err != nil || sum.Converted != 1 {
		t.Fatalf("%+v, %v; want it converted (%+v)", sum, err, got["restricted.pdf"])
	}
	if info, err := pdf.Inspect(got["restricted.pdf"].Output, ""); err != nil || info.Pages != 3 {
		t.Errorf("output: %+v, %v; want 3 pages that open without a password", info, err)
	}
}

// TestRunSweepsTempRarely: two runs in a row sweep the temporary
// directory once at most (once a minute), not once each: calq serve
// runs Run for every request.
func TestRunSweepsTempRarely(t *testing.T) {
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	sweeps := func() int {
		tempSweep.mu.Lock()
		defer tempSweep.mu.Unlock()
		return tempSweep.sweeps
	}
	before := sweeps()
	for range 2 {
		Run(context.Background(), Options{Inputs: []string{in}, Out: out})
	}
	if got := sweeps() - before; got > 1 {
		t.Errorf("got %d sweeps of the temporary directory in two runs, want at most 1", got)
	}
}
