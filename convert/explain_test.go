package convert

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/sniff"
	"calq/sched"
)

// jargon is what a reason for people must not hold: calq's and its
// tools' own terms, Go's error plumbing, private paths.
var jargon = regexp.MustCompile(`(?i)permanent|not retried|job timed out|load failed|OOXML|OLE2|zip signature|` +
	`pdfcpu|validation error|declares|decode image|Unsupported URL|file:///|/tmp/|\.cxx|\bUNO\b|bad output|%!`)

// TestExplain: every failure calq can show a person reads as a sentence
// without internal terms; the technical text stays as the detail.
func TestExplain(t *testing.T) {
	sniffErr := func(path string) error {
		_, err := sniff.Detect(path)
		if err == nil {
			t.Fatalf("sniff.Detect(%s) found nothing wrong", path)
		}
		return &detected{err: err}
	}
	timeout := classify(context.Background(), sniff.Office, fmt.Errorf("convert: %w", context.DeadlineExceeded), 3*time.Second)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"timeout", timeout, "converting it took longer than the limit of 3 seconds, so it was stopped"},
		{"load failed", sched.Permanent(&lo.ConvertError{Input: "in.docx", Reason: lo.ReasonLoadFailed,
			Detail: `source file could not be loaded: Unsupported URL <file:///tmp/calq-lo-1/work/in.docx>: "type detection aborted" at ./framework/source/loadenv/loadenv.cxx:189`}),
			"LibreOffice cannot open it: the file is damaged, or not a kind of document LibreOffice reads"},
		{"wrong password", &lo.ConvertError{Input: "in.docx", Reason: lo.ReasonPassword, Err: lo.ErrWrongPassword},
			"the password does not open the document"},
		{"encryption LibreOffice cannot open", &lo.ConvertError{Input: "in.docx", Reason: lo.ReasonEncryption},
			"the document is encrypted in a way LibreOffice cannot open, whatever the password"},
		{"memory", &lo.ConvertError{Input: "in.docx", Reason: lo.ReasonMemoryLimit,
			Err: errors.New("LibreOffice used 612 MiB, over the limit of 50 MiB")},
			"converting it needed too much memory, so it was stopped (LibreOffice used 612 MiB, over the limit of 50 MiB)"},
		{"instance died", &lo.ConvertError{Input: "in.docx", Reason: lo.ReasonInstanceDied},
			"LibreOffice stopped working while converting it"},
		{"disk full", fmt.Errorf("pass through a.pdf: %w", &fs.PathError{Op: "write", Path: "/tmp/out/.calq-pdf-1/1.pdf", Err: syscall.ENOSPC}),
			"the disk calq writes to is full"},
		{"empty", sniffErr("../testdata/convert/zero-bytes.docx"), "the file is empty"},
		{"not what its name says", sniffErr("../testdata/convert/random-bytes.docx"),
			"the file is named .docx, but it is not a Word document"},
		{"another kind", sniffErr("../testdata/convert/broken/html-named.xls"),
			"the file is named .xls, but it is not an Excel workbook: it looks like a web page or XML"},
		{"damaged", sniffErr("../testdata/convert/truncated-half.docx"),
			"the file is damaged (cut short or corrupt), so it cannot be read as a Word document"},
		{"office password", sniffErr("../testdata/convert/protected/protected.docx"),
			"the document is locked with a password, and calq was given none to open it"},
		{"PDF password", sniffErr("../testdata/convert/testPassword4Spaces.pdf"),
			"the PDF is locked with a password, and calq was given none to open it"},
		{"encrypted PDF", sched.Permanent(fmt.Errorf("pass through: %w (pdfcpu: please provide the correct password)", pdf.ErrEncrypted)),
			"the PDF is locked with a password, and calq was given none to open it"},
		{"image 0×0", classify(context.Background(), sniff.Image, fmt.Errorf("images to pdf: x.png: %w",
			checkDimsErr(t, 0, 0)), time.Minute), "the image is damaged: it says it is 0×0 pixels"},
		{"image too large", classify(context.Background(), sniff.Image, fmt.Errorf("images to pdf: x.png: %w",
			checkDimsErr(t, 20000, 20000)), time.Minute),
			"the image is too large to convert: 20000×20000 pixels, over the limit of 100 megapixels a page"},
		{"damaged PDF", classify(context.Background(), sniff.PDF, errors.New("pass through loop.pdf: validation error (obj#2): page tree loops"), time.Minute),
			"the PDF is damaged, so calq cannot read it"},
		{"damaged image", classify(context.Background(), sniff.Image, errors.New("images to pdf: x.png: decode image: png: invalid format"), time.Minute),
			"the image is damaged, so calq cannot read it"},
		{"unreadable", sched.Permanent(errors.New(readFailure(&fs.PathError{Op: "open", Path: "/in/a.docx", Err: syscall.EACCES}))),
			"calq cannot read the file: permission denied"},
	}
	// The technical text stays, as the detail.
	details := map[string]string{
		"damaged PDF":  "validation error (obj#2): page tree loops",
		"load failed":  "type detection aborted",
		"memory":       "memory limit: LibreOffice used 612 MiB",
		"another kind": "no OLE2 signature",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, detail := explain(tt.err)
			if got != tt.want {
				t.Errorf("explain(%v) = %q, want %q", tt.err, got, tt.want)
			}
			if m := jargon.FindString(got); m != "" {
				t.Errorf("explain(%v) = %q holds %q", tt.err, got, m)
			}
			if detail == got {
				t.Errorf("detail %q repeats the reason", detail)
			}
			if want := details[tt.name]; !strings.Contains(detail, want) {
				t.Errorf("detail %q, want it to hold %q", detail, want)
			}
		})
	}
}

// checkDimsErr is CheckImageSize's error for a GIF whose header says
// w×h pixels.
func checkDimsErr(t *testing.T, w, h uint16) error {
	t.Helper()
	gif := binary.LittleEndian.AppendUint16([]byte("GIF89a"), w)
	gif = append(binary.LittleEndian.AppendUint16(gif, h), 0, 0, 0, ';')
	path := filepath.Join(t.TempDir(), "x.gif")
	if err := os.WriteFile(path, gif, 0o644); err != nil {
		t.Fatal(err)
	}
	err := pdf.CheckImageSize(path)
	if err == nil {
		t.Fatalf("an image of %d×%d pixels passes", w, h)
	}
	return err
}

// TestFailureClass: a failure is recorded in the history (and counted on
// calq serve's monitoring page) under a few words that group the files
// failing alike, not "permanent" or "error".
func TestFailureClass(t *testing.T) {
	sniffErr := func(path string) error {
		_, err := sniff.Detect(path)
		return sched.Permanent(&detected{err: err})
	}
	tests := []struct {
		err  error
		want string
	}{
		{sched.Permanent(&lo.ConvertError{Reason: lo.ReasonLoadFailed}), "LibreOffice cannot open it"},
		{sched.Permanent(&lo.ConvertError{Reason: lo.ReasonPassword, Err: lo.ErrWrongPassword}), "wrong password"},
		{sched.Permanent(&lo.ConvertError{Reason: lo.ReasonEncryption}), "encryption LibreOffice cannot open"},
		{sched.Permanent(&lo.ConvertError{Reason: lo.ReasonMemoryLimit}), "too much memory"},
		{sniffErr("../testdata/convert/zero-bytes.docx"), "empty file"},
		{sniffErr("../testdata/convert/random-bytes.docx"), "not what its name says"},
		{sniffErr("../testdata/convert/truncated-half.docx"), "damaged file"},
		{sniffErr("../testdata/convert/protected/protected.docx"), "locked with a password"},
		{classify(context.Background(), sniff.PDF, errors.New("validation error"), time.Minute), "damaged PDF"},
		{classify(context.Background(), sniff.Image, checkDimsErr(t, 0, 0), time.Minute), "damaged image"},
		{classify(context.Background(), sniff.Image, checkDimsErr(t, 20000, 20000), time.Minute), "image too large"},
	}
	for _, tt := range tests {
		err := withClass(tt.err)
		if got := sched.ReasonOf(err); got != tt.want {
			t.Errorf("the history's reason of %v = %q, want %q", tt.err, got, tt.want)
		}
		if !sched.IsPermanent(err) {
			t.Errorf("%v is no longer permanent once classed", tt.err)
		}
	}
	if err := errors.New("disk on fire"); withClass(err) != err {
		t.Errorf("an unknown error is classed: %v", withClass(err))
	}
}
