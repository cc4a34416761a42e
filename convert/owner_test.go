package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"calq/convert/pdf"
	"calq/sched/journal"
)

func openJournal(t *testing.T) (*journal.Journal, *SQLStore) {
	t.Helper()
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	s, err := OpenStore(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	return j, s
}

// TestOutputBelongsToOneInput: two inputs that share -o never take turns
// at one PDF. The second is refused with a reason naming both, unless
// --overwrite; the same input by another path, or edited, is still its
// PDF's input.
func TestOutputBelongsToOneInput(t *testing.T) {
	j, store := openJournal(t)
	a, b := t.TempDir(), t.TempDir()
	copyTo(t, filepath.Join(testdata, "pages_3.pdf"), filepath.Join(a, "report.pdf"))
	copyTo(t, filepath.Join(testdata, "testPDF.pdf"), filepath.Join(b, "report.pdf"))
	alink := filepath.Join(t.TempDir(), "alink")
	if err := os.Symlink(a, alink); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	pdfPath := filepath.Join(out, "report.pdf")
	ra, _ := filepath.EvalSymlinks(filepath.Join(a, "report.pdf"))
	rb, _ := filepath.EvalSymlinks(filepath.Join(b, "report.pdf"))
	tests := []struct {
		name      string
		input     string
		overwrite bool
		edit      bool   // replace the input's bytes first
		want      string // the file's state
		reason    string
		owner     string // the record's input after the run
	}{
		{"A converts", a, false, false, StateConverted, "", ra},
		{"B is refused, naming both", b, false, false, StateFailed,
			pdfPath + " is the PDF of " + ra + ", not of " + filepath.Join(b, "report.pdf") + "; --overwrite replaces it", ra},
		{"A through a symlink is A", alink, false, false, StateSkipped, "unchanged", ra},
		{"A edited is still A", a, false, true, StateConverted, "", ra},
		{"B with --overwrite takes it", b, true, false, StateConverted, "", rb},
		{"then A is refused", a, false, false, StateFailed, "is the PDF of " + rb + ", not of ", rb},
	}
	for _, tt := range tests {
		if tt.edit {
			copyTo(t, filepath.Join(testdata, "broken-xref.pdf"), filepath.Join(a, "report.pdf"))
		}
		before, _ := os.ReadFile(pdfPath)
		_, got, err := collect(t, Options{Inputs: []string{tt.input}, Out: out, Journal: j, Store: store, Overwrite: tt.overwrite})
		res := got["report.pdf"]
		if res.State != tt.want || !strings.Contains(res.Reason, tt.reason) {
			t.Errorf("%s: %s %q (%v); want %s %q", tt.name, res.State, res.Reason, err, tt.want, tt.reason)
		}
		if after, _ := os.ReadFile(pdfPath); tt.want == StateFailed && string(after) != string(before) {
			t.Errorf("%s: the refused PDF was replaced", tt.name)
		}
		if rec, _, _ := store.Record(context.Background(), pdfPath); rec.Input != tt.owner {
			t.Errorf("%s: the record names %s, want %s", tt.name, rec.Input, tt.owner)
		}
	}
}

// TestOwnerFromOlderJournal: records and jobs an older calq wrote still
// tell whose a PDF is: a record of the path as walked (through a
// symlink) is the same input; a finished job of another input is
// another's.
func TestOwnerFromOlderJournal(t *testing.T) {
	ctx := context.Background()
	in := copyFiles(t, "pages_3.pdf")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	pdfPath := filepath.Join(out, "pages_3.pdf")

	// A row from before: its input is the path as walked.
	j, store := openJournal(t)
	if _, err := Run(ctx, Options{Inputs: []string{link}, Out: out, Journal: j, Store: store}); err != nil {
		t.Fatal(err)
	}
	rec, _, _ := store.Record(ctx, pdfPath)
	rec.Input, rec.PendingSum = filepath.Join(link, "pages_3.pdf"), rec.OutputSum
	if err := store.Pending(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := store.Placed(ctx, pdfPath); err != nil {
		t.Fatal(err)
	}
	_, got, err := collect(t, Options{Inputs: []string{in}, Out: out, Journal: j, Store: store})
	if res := got["pages_3.pdf"]; err != nil || res.State != StateSkipped {
		t.Errorf("an older row through a symlink: %+v, %v; want the same input, unchanged", res, err)
	}

	// A job from before records: another input's PDF.
	j2, store2 := openJournal(t)
	other := filepath.Join(t.TempDir(), "pages_3.pdf")
	finishOldJob(t, j2, other, pdfPath)
	_, got, err = collect(t, Options{Inputs: []string{in}, Out: out, Journal: j2, Store: store2})
	if res := got["pages_3.pdf"]; res.State != StateFailed || !strings.Contains(res.Reason, "is the PDF of "+other) {
		t.Errorf("an older job of another input: %+v, %v; want refused naming %s", res, err, other)
	}
}

// TestMergeBelongsToItsInputs: a merged PDF has provenance like any
// other: a file there calq did not merge, or merged from other inputs,
// is refused before any conversion unless --overwrite; it is merged
// again when its options change, and not when nothing did.
func TestMergeBelongsToItsInputs(t *testing.T) {
	ctx := context.Background()
	j, store := openJournal(t)
	a, b := copyFiles(t, "pages_3.pdf"), copyFiles(t, "testPDF.pdf")
	merged := filepath.Join(t.TempDir(), "all.pdf")
	run := func(o Options) (Summary, error) {
		o.Out, o.Merge, o.Journal, o.Store = filepath.Join(filepath.Dir(merged), "out"), merged, j, store
		return Run(ctx, o)
	}
	copyTo(t, filepath.Join(testdata, "testPDF.pdf"), merged)
	if sum, err := run(Options{Inputs: []string{a}}); err == nil || !strings.Contains(err.Error(), "exists and calq did not write it") || sum.Converted != 0 {
		t.Errorf("over a stranger's file: %+v, %v; want refused before any conversion", sum, err)
	}
	steps := []struct {
		name   string
		o      Options
		merged bool
		err    string
	}{
		{"--overwrite takes it", Options{Inputs: []string{a}, Overwrite: true}, true, ""},
		{"nothing changed", Options{Inputs: []string{a}}, false, ""},
		{"other options", Options{Inputs: []string{a}, Post: postTitle("T")}, true, ""},
		{"other inputs are refused", Options{Inputs: []string{a, b}, Post: postTitle("T")}, false, "is the merge of " + realOf(t, a) + ", not of "},
	}
	for _, s := range steps {
		sum, err := run(s.o)
		if (sum.Merged != "") != s.merged || (s.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), s.err) {
			t.Errorf("%s: merged %q, %v; want merged %v, error %q", s.name, sum.Merged, err, s.merged, s.err)
		}
	}
	// The merge target named as one of the per-file PDFs is a usage error.
	_, err := Run(ctx, Options{Inputs: []string{a}, Out: filepath.Dir(merged), Merge: filepath.Join(filepath.Dir(merged), "pages_3.pdf"), Journal: j, Store: store})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "is also the PDF of") {
		t.Errorf("merge target = a per-file PDF: %v; want a usage error", err)
	}
}

func postTitle(title string) pdf.Post { return pdf.Post{Metadata: &pdf.Metadata{Title: title}} }

func realOf(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
