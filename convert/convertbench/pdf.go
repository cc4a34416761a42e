package convertbench

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"time"

	"calq/convert/pdf"
	"calq/convert/pdfpool"
	"calq/internal/pdfgen"
)

// PDFOptions configure PDF.
type PDFOptions struct {
	Count int       // operations of each kind, each way (0 → 50)
	Log   io.Writer // progress lines; nil: none
}

// PDFResult is what PDF measured: what pdfcpu's work costs in a helper
// process (pdfpool) against the same work in calq's own process (pdf).
type PDFResult struct {
	Operations   int       `json:"operations"`           // of each kind, each way
	StartSeconds float64   `json:"helper_start_seconds"` // a helper's start and first operation, less a warm helper's operation
	Kinds        []PDFKind `json:"kinds"`
}

// PDFKind is one kind of operation: milliseconds each, in calq's own
// process and in a warm helper, and their ratio.
type PDFKind struct {
	Name        string  `json:"name"`
	InProcessMS float64 `json:"in_process_ms"`
	HelperMS    float64 `json:"helper_ms"`
	Ratio       float64 `json:"helper_vs_in_process"`
}

// pdfKind is an operation done both ways on the file a setup wrote.
type pdfKind struct {
	name   string
	ext    string // of the input
	setup  func(path string) error
	own    func(ctx context.Context, in, out string) error
	helper func(ctx context.Context, p *pdfpool.Pool, in, out string) error
}

var rotate = pdf.Post{Rotate: &pdf.Rotation{Angle: 90}}

var pdfKinds = []pdfKind{
	{"pass through 3 pages", ".pdf", pages(3),
		func(ctx context.Context, in, out string) error { return pdf.PassThrough(ctx, in, out) },
		func(ctx context.Context, p *pdfpool.Pool, in, out string) error {
			return p.PassThrough(ctx, 0, in, out)
		}},
	{"rotate 100 pages", ".pdf", pages(100),
		func(ctx context.Context, in, out string) error { return pdf.Apply(ctx, in, out, rotate) },
		func(ctx context.Context, p *pdfpool.Pool, in, out string) error {
			return p.Apply(ctx, 0, in, out, rotate)
		}},
	{"a 1000×700 PNG to PDF", ".png", writePNG,
		func(ctx context.Context, in, out string) error { return pdf.FromImages(ctx, []string{in}, out) },
		func(ctx context.Context, p *pdfpool.Pool, in, out string) error {
			return p.FromImages(ctx, 0, []string{in}, out)
		}},
}

func pages(n int) func(string) error {
	return func(path string) error {
		return pdfgen.WriteFile(path, func(w io.Writer) error { return pdfgen.Pages(w, n) })
	}
}

func writePNG(path string) error {
	img := image.NewNRGBA(image.Rect(0, 0, 1000, 700))
	for y := range 700 {
		for x := range 1000 {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// PDF runs each kind of operation Count times in calq's own process and
// Count times in one warm helper, taking turns, and measures a helper's
// start. The
// program must have called proc.MaybeRunGuard at its start.
func PDF(ctx context.Context, o PDFOptions) (PDFResult, error) {
	if o.Count <= 0 {
		o.Count = 50
	}
	dir, err := os.MkdirTemp("", "calq-bench-pdf-")
	if err != nil {
		return PDFResult{}, err
	}
	defer os.RemoveAll(dir)
	res := PDFResult{Operations: o.Count}
	for i, k := range pdfKinds {
		in := filepath.Join(dir, fmt.Sprintf("in%d%s", i, k.ext))
		if err := k.setup(in); err != nil {
			return res, err
		}
		r, start, err := measure(ctx, k, in, filepath.Join(dir, "out.pdf"), o.Count)
		if err != nil {
			return res, fmt.Errorf("%s: %w", k.name, err)
		}
		if i == 0 {
			res.StartSeconds = start.Seconds()
		}
		logf(o.Log, "%s: %.2f ms in calq's process, %.2f ms in a helper", k.name, r.InProcessMS, r.HelperMS)
		res.Kinds = append(res.Kinds, r)
	}
	return res, nil
}

// measure times n operations of k each way, taking turns so that the
// machine's other load weighs on both alike, after one of each not
// counted (pdfcpu's first use, a helper's start: timed apart).
func measure(ctx context.Context, k pdfKind, in, out string, n int) (PDFKind, time.Duration, error) {
	p := pdfpool.New(pdfpool.Options{Helpers: 1})
	defer p.Close()
	own := func() error { return k.own(ctx, in, out) }
	helper := func() error { return k.helper(ctx, p, in, out) }
	if err := own(); err != nil {
		return PDFKind{}, 0, err
	}
	first, err := timed(helper)
	if err != nil {
		return PDFKind{}, 0, err
	}
	var ownTime, helperTime time.Duration
	for range n {
		d, err := timed(own)
		if err != nil {
			return PDFKind{}, 0, err
		}
		ownTime += d
		if d, err = timed(helper); err != nil {
			return PDFKind{}, 0, err
		}
		helperTime += d
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(n) }
	r := PDFKind{Name: k.name, InProcessMS: ms(ownTime), HelperMS: ms(helperTime), Ratio: float64(helperTime) / float64(ownTime)}
	return r, first - helperTime/time.Duration(n), nil
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
