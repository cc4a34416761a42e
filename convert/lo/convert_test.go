package lo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
)

// TestConvertFormats converts one document of each kind through one warm
// instance; page counts are those measured in the corpus's EXPECTED.md.
func TestConvertFormats(t *testing.T) {
	inst := sharedPool.get(t).Instances()[0]
	tests := []struct {
		file  string
		pages int
	}{
		{"sample_3.docx", 1},
		{"simple.xlsx", 1},
		{"sample.pptx", 2},
		{"simple.odt", 1},
		{"test.rtf", 1},
		{"testCSV.csv", 1},
		{"testHTML_utf8.html", 2},
		{"testWORD_various.doc", 2},
		{"Übersicht – 報告.docx", 1}, // non-ASCII, spaces, en dash
	}
	dir := t.TempDir()
	for _, tt := range tests {
		out := filepath.Join(dir, tt.file+".pdf")
		if err := inst.Convert(t.Context(), testdata(t, tt.file), out, ConvertOptions{}); err != nil {
			t.Errorf("Convert(%s) = %v", tt.file, err)
			continue
		}
		if n := pages(checkPDF(t, out, 1)); n != tt.pages {
			t.Errorf("%s: %d pages, want %d", tt.file, n, tt.pages)
		}
	}
}

// TestSameStem converts a .doc and a .docx of the same stem, which one
// shared --outdir would collide on, to two outputs.
func TestSameStem(t *testing.T) {
	inst := sharedPool.get(t).Instances()[1]
	dir := t.TempDir()
	for _, f := range []string{"testWORD_various.doc", "testWORD_various.docx"} {
		if err := inst.Convert(t.Context(), testdata(t, f), filepath.Join(dir, f+".pdf"), ConvertOptions{}); err != nil {
			t.Fatalf("Convert(%s) = %v", f, err)
		}
		checkPDF(t, filepath.Join(dir, f+".pdf"), 2)
	}
}

// TestLoadFailed: a truncated docx gives "load failed" and no output;
// the same instance, not restarted, converts the next document.
func TestLoadFailed(t *testing.T) {
	inst := sharedPool.get(t).Instances()[0]
	dir := t.TempDir()
	whole, err := os.ReadFile(testdata(t, "sample_3.docx"))
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "truncated.docx")
	if err := os.WriteFile(broken, whole[:len(whole)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	starts := inst.Starts()
	out := filepath.Join(dir, "truncated.pdf")
	err = inst.Convert(t.Context(), broken, out, ConvertOptions{})
	var ce *ConvertError
	if !errors.As(err, &ce) || ce.Reason != ReasonLoadFailed || ce.Input != broken {
		t.Fatalf("Convert(truncated) = %v, want a ConvertError %q for %s", err, ReasonLoadFailed, broken)
	}
	t.Logf("error: %v", err)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output after a load failure: stat = %v, want not exist", err)
	}
	good := filepath.Join(dir, "good.pdf")
	if err := inst.Convert(t.Context(), testdata(t, "sample_3.docx"), good, ConvertOptions{}); err != nil {
		t.Fatalf("next Convert = %v", err)
	}
	checkPDF(t, good, 1)
	if got := inst.Starts(); got != starts {
		t.Errorf("instance started %d times during the test, want 0", got-starts)
	}
}

// TestTimeout: a document that hangs LibreOffice, under a 4 s deadline,
// gives "timeout", leaves no output, and the next conversion works on a
// restarted instance.
func TestTimeout(t *testing.T) {
	inst := sharedPool.get(t).Instances()[1]
	dir := t.TempDir()
	starts := inst.Starts()
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
	defer cancel()
	out := filepath.Join(dir, "hang.pdf")
	err := inst.Convert(ctx, hangingDoc(), out, ConvertOptions{})
	var ce *ConvertError
	if !errors.As(err, &ce) || ce.Reason != ReasonTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Convert(hanging) = %v, want a ConvertError %q wrapping DeadlineExceeded", err, ReasonTimeout)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output after a timeout: stat = %v, want not exist", err)
	}
	if entries, _ := os.ReadDir(inst.l.work()); len(entries) != 0 {
		t.Errorf("work directory after a timeout holds %d entries, want none", len(entries))
	}
	if n := len(clients(inst)); n != 0 {
		t.Errorf("%d clients still run after the timeout", n)
	}
	good := filepath.Join(dir, "good.pdf")
	if err := inst.Convert(t.Context(), testdata(t, "simple.odt"), good, ConvertOptions{}); err != nil {
		t.Fatalf("Convert after the timeout = %v", err)
	}
	checkPDF(t, good, 1)
	if got := inst.Starts() - starts; got != 1 {
		t.Errorf("instance started %d times, want 1 (a restart)", got)
	}
}

// TestInstanceDied: soffice.bin killed during a conversion gives
// "instance died"; the next conversion restarts it.
func TestInstanceDied(t *testing.T) {
	inst := sharedPool.get(t).Instances()[0]
	dir := t.TempDir()
	errc := make(chan error, 1)
	go func() {
		errc <- inst.Convert(t.Context(), hangingDoc(), filepath.Join(dir, "hang.pdf"), ConvertOptions{})
	}()
	waitFor(t, "the conversion", func() bool { return handing(inst) })
	inst.mu.Lock()
	r := inst.run
	inst.mu.Unlock()
	var bins int
	for _, pid := range marked(profileArg(inst.l.profileURL())) {
		if isBin(pid) && pgidOf(pid) == r.pgid && killed(pid) {
			bins++
		}
	}
	if bins != 1 {
		t.Fatalf("killed %d soffice.bin of the instance, want 1", bins)
	}
	var ce *ConvertError
	if err := <-errc; !errors.As(err, &ce) || ce.Reason != ReasonInstanceDied {
		t.Fatalf("Convert = %v, want a ConvertError %q", err, ReasonInstanceDied)
	}
	if err := inst.Convert(t.Context(), testdata(t, "simple.odt"), filepath.Join(dir, "good.pdf"), ConvertOptions{}); err != nil {
		t.Fatalf("Convert after the death = %v", err)
	}
}

// TestParallel converts on both instances at once: each has its own
// profile, soffice.bin and work directory.
func TestParallel(t *testing.T) {
	p := sharedPool.get(t)
	dir := t.TempDir()
	files := []string{"SampleSS.xlsx", "SampleShow.pptx", "HeaderFooterUnicode.docx", "chinese_spreadsheet.ods"}
	var wg sync.WaitGroup
	errs := make([]error, len(p.Instances()))
	for n, inst := range p.Instances() {
		wg.Go(func() {
			for _, f := range files {
				out := filepath.Join(dir, inst.Name()+"-"+f+".pdf")
				if err := inst.Convert(t.Context(), testdata(t, f), out, ConvertOptions{}); err != nil {
					errs[n] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for n, err := range errs {
		if err != nil {
			t.Errorf("instance %d: %v", n, err)
		}
	}
	for _, inst := range p.Instances() {
		for _, f := range files {
			checkPDF(t, filepath.Join(dir, inst.Name()+"-"+f+".pdf"), 1)
		}
	}
	a, b := p.Instances()[0].l.profileURL(), p.Instances()[1].l.profileURL()
	if a == b {
		t.Errorf("both instances use profile %s", a)
	}
}

// TestPDFA asks for each PDF/A part from documents of each module and
// reads the part back from the XMP metadata.
func TestPDFA(t *testing.T) {
	inst := sharedPool.get(t).Instances()[1]
	tests := []struct {
		file string
		part int
	}{
		{"sample_3.docx", 1},
		{"simple.xlsx", 2},
		{"sample.pptx", 3},
		{"testHTML_utf8.html", 2},
		{"testPNG.png", 2},
	}
	dir := t.TempDir()
	re := regexp.MustCompile(`<pdfaid:part>(\d)</pdfaid:part>|pdfaid:part="(\d)"`)
	for _, tt := range tests {
		out := filepath.Join(dir, tt.file+".pdf")
		if err := inst.Convert(t.Context(), testdata(t, tt.file), out, ConvertOptions{PDFA: tt.part}); err != nil {
			t.Errorf("Convert(%s, PDF/A-%d) = %v", tt.file, tt.part, err)
			continue
		}
		m := re.FindSubmatch(checkPDF(t, out, 1))
		if m == nil || string(m[1])+string(m[2]) != string(rune('0'+tt.part)) {
			t.Errorf("%s: XMP says pdfaid:part %q, want %d", tt.file, m, tt.part)
		}
	}
	err := inst.Convert(t.Context(), testdata(t, "sample_3.docx"), filepath.Join(dir, "x.pdf"), ConvertOptions{PDFA: 4})
	var ce *ConvertError
	if !errors.As(err, &ce) {
		t.Errorf("Convert(PDF/A-4) = %v, want a ConvertError", err)
	}
}

// TestRecycle: an instance restarts after MaxConversions conversions, and
// after any conversion that leaves it above MaxRSS.
func TestRecycle(t *testing.T) {
	sharedPool.get(t) // Require
	tests := []struct {
		name       string
		o          Options
		convs      int
		wantStarts int
	}{
		{"MaxConversions 2", Options{MaxConversions: 2}, 3, 2},
		{"MaxRSS 1 byte", Options{MaxRSS: 1}, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Instances, tt.o.StateDir = 1, t.TempDir()
			p, err := New(t.Context(), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			inst := p.Instances()[0]
			for n := range tt.convs {
				if err := inst.Convert(t.Context(), testdata(t, "simple.odt"), filepath.Join(t.TempDir(), "out.pdf"), ConvertOptions{}); err != nil {
					t.Fatalf("conversion %d: %v", n+1, err)
				}
			}
			if got := inst.Starts(); got != tt.wantStarts {
				t.Errorf("started %d times in %d conversions, want %d", got, tt.convs, tt.wantStarts)
			}
		})
	}
}
