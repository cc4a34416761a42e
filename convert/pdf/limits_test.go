package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/filter"

	"calq/internal/pdfgen"
)

// rawPDF is a PDF of the given objects, numbered from 1, with a trailer
// naming object 1 as the catalog (the offsets are not checked).
func rawPDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	for i, o := range objs {
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\n%%%%EOF\n", len(objs)+1)
	return b.Bytes()
}

// streamObj is a stream object with dict's entries and data, encoded by
// filters in the order a reader decodes them (data is already a JPEG
// when the last is DCTDecode).
func streamObj(t testing.TB, dict string, data []byte, filters ...string) string {
	t.Helper()
	for i := len(filters) - 1; i >= 0; i-- {
		if filters[i] == "DCTDecode" {
			continue
		}
		f, err := filter.NewFilter(filters[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := f.Encode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(r); err != nil {
			t.Fatal(err)
		}
	}
	names := ""
	for _, f := range filters {
		names += "/" + f + " "
	}
	return fmt.Sprintf("<< %s /Length %d /Filter [%s] >>\nstream\n%s\nendstream", dict, len(data), names, data)
}

func writeTemp(t testing.TB, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.pdf")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func generated(t testing.TB, gen func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gen(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// rewritten is pdfcpu's rewrite of b, with its pages in object streams.
func rewritten(t testing.TB, b []byte) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.pdf")
	if err := PassThrough(context.Background(), writeTemp(t, b), out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte("/ObjStm")) {
		t.Fatal("pdfcpu wrote no object stream")
	}
	return got
}

func TestCheckLimits(t *testing.T) {
	spaces := func(n int) []byte { return bytes.Repeat([]byte{' '}, n) }
	page := "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>"
	const mib = 1 << 20
	tests := []struct {
		name string
		pdf  []byte
		lim  Limits
		want error // nil, or a *LimitError
	}{
		{"pages at the limit", generated(t, func(w io.Writer) error { return pdfgen.Pages(w, 10) }), Limits{MaxPages: 10}, nil},
		{"pages over the limit", generated(t, func(w io.Writer) error { return pdfgen.Pages(w, 11) }), Limits{MaxPages: 10},
			&LimitError{Pages: 11, MaxPages: 10}},
		{"100,000 pages, default limits", generated(t, func(w io.Writer) error { return pdfgen.Pages(w, 100000) }), Limits{},
			&LimitError{Pages: 100000, MaxPages: DefaultMaxPages}},
		{"pages in object streams", rewritten(t, generated(t, func(w io.Writer) error { return pdfgen.Pages(w, 50) })),
			Limits{MaxPages: 49}, &LimitError{Pages: 50, MaxPages: 49}},
		{"escaped names", rawPDF("<< /Type /Catalog >>", "<< /Type /P#61ge >>", "<< /T#79pe /Page >>", "<</Type/Page>>"),
			Limits{MaxPages: 2}, &LimitError{Pages: 3, MaxPages: 2}},
		{"pages without a type, in kids", rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Kids [3 0 R 4 0 R 5 0 R] >>", "<< >>", "<< >>", "<< >>"),
			Limits{MaxPages: 2}, &LimitError{Pages: 3, MaxPages: 2}},
		{"stream keywords in a string and a comment", rawPDF("<< /Title (x) >> % stream\n", "<< /T (<< >> stream\n) >>", page, page, page),
			Limits{MaxPages: 2}, &LimitError{Pages: 3, MaxPages: 2}},
		{"a stream holding page objects is not pages", rawPDF("<< /Type /Catalog >>", streamObj(t, "", []byte(page+page+page), "FlateDecode")),
			Limits{MaxPages: 2}, nil},
		{"inflating at the limit", generated(t, func(w io.Writer) error { return pdfgen.Inflating(w, mib) }), Limits{MaxInflated: mib}, nil},
		{"inflating over the limit", generated(t, func(w io.Writer) error { return pdfgen.Inflating(w, 2*mib) }), Limits{MaxInflated: mib},
			&LimitError{MaxInflated: mib}},
		{"1 GiB stream, default limits", generated(t, func(w io.Writer) error { return pdfgen.Inflating(w, 1<<30) }), Limits{},
			&LimitError{MaxInflated: DefaultMaxInflated}},
		{"streams add up", rawPDF("<< >>", streamObj(t, "", spaces(mib), "FlateDecode"), streamObj(t, "", spaces(mib), "FlateDecode")),
			Limits{MaxInflated: 2*mib - 1}, &LimitError{MaxInflated: 2*mib - 1}},
		{"images are not inflated", rawPDF("<< >>", streamObj(t, "/Subtype /Image", spaces(3*mib), "FlateDecode")), Limits{MaxInflated: mib}, nil},
		{"indirect length", rawPDF("<< >>", strings.Replace(streamObj(t, "", spaces(2*mib), "FlateDecode"), "/Length", "/Length 9 0 R /L", 1)),
			Limits{MaxInflated: mib}, &LimitError{MaxInflated: mib}},
		{"ASCIIHex then Flate", rawPDF("<< >>", streamObj(t, "", spaces(2*mib), "ASCIIHexDecode", "FlateDecode")), Limits{MaxInflated: mib},
			&LimitError{MaxInflated: mib}},
		{"ASCII85", rawPDF("<< >>", streamObj(t, "", spaces(2*mib), "ASCII85Decode")), Limits{MaxInflated: mib}, &LimitError{MaxInflated: mib}},
		{"RunLength", rawPDF("<< >>", streamObj(t, "", spaces(2*mib), "RunLengthDecode")), Limits{MaxInflated: mib}, &LimitError{MaxInflated: mib}},
		{"LZW", rawPDF("<< >>", streamObj(t, "", spaces(2*mib), "LZWDecode")), Limits{MaxInflated: mib}, &LimitError{MaxInflated: mib}},
		{"LZW under the limit", rawPDF("<< >>", streamObj(t, "", spaces(mib/2), "LZWDecode")), Limits{MaxInflated: mib}, nil},
		{"not a PDF", []byte("hello /Type /Page /Type /Page"), Limits{MaxPages: 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, tt.pdf)
			err := CheckLimits(context.Background(), path, tt.lim)
			var le *LimitError
			switch {
			case tt.want == nil && err != nil:
				t.Errorf("got %v, want nil", err)
			case tt.want != nil && !errors.As(err, &le):
				t.Errorf("got %v, want %v", err, tt.want)
			case tt.want != nil && *le != *tt.want.(*LimitError):
				t.Errorf("got %+v, want %+v", *le, *tt.want.(*LimitError))
			case tt.want != nil && (!errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path)):
				t.Errorf("got %v, want ErrTooLarge naming %s", err, path)
			}
		})
	}
}

// TestCheckLimitsStops: a cancelled context stops the scan.
func TestCheckLimitsStops(t *testing.T) {
	path := writeTemp(t, generated(t, func(w io.Writer) error { return pdfgen.Inflating(w, 64<<20) }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := CheckLimits(ctx, path, Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestLimitErrorText(t *testing.T) {
	tests := []struct {
		err  *LimitError
		want string
	}{
		{&LimitError{Pages: 100000, MaxPages: 10000}, "the PDF has 100000 pages, over the limit of 10000"},
		{&LimitError{MaxInflated: 512 << 20}, "the PDF's streams inflate to more than the limit of 512 MiB"},
		{&LimitError{MaxInflated: 1000}, "the PDF's streams inflate to more than the limit of 1000 bytes"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

// FuzzCheckLimits: whatever the bytes, CheckLimits ends, without a panic,
// and inflates no more than its limit.
func FuzzCheckLimits(f *testing.F) {
	f.Add(rawPDF("<< /Type /Page >>", "<< /Kids [1 0 R] >>"))
	f.Add(rawPDF("<< >>", streamObj(f, "/Type /ObjStm", []byte("1 0 << /Type /Page >>"), "FlateDecode")))
	f.Add(rawPDF("<< >>", streamObj(f, "", []byte("x"), "ASCIIHexDecode", "RunLengthDecode", "ASCII85Decode", "LZWDecode")))
	f.Add([]byte("%PDF-1.7\n<< /Length 5 >>\nstream\r\n(((\\"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := writeTemp(t, append([]byte("%PDF-1.7\n"), b...))
		err := CheckLimits(context.Background(), path, Limits{MaxPages: 3, MaxInflated: 1 << 20})
		if err != nil && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("an error other than ErrTooLarge: %v", err)
		}
	})
}
