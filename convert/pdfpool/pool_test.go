package pdfpool

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"calq/convert/pdf"
	"calq/internal/pdfgen"
	"calq/sched"
)

// testFile is a document of the repository's testdata/convert.
func testFile(t *testing.T, name string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "testdata", "convert", name)
}

func genPDF(t *testing.T, dir string, gen func(io.Writer) error) string {
	t.Helper()
	path := filepath.Join(dir, "gen.pdf")
	os.Remove(path)
	if err := pdfgen.WriteFile(path, gen); err != nil {
		t.Fatal(err)
	}
	return path
}

func pages(t *testing.T, path string) int {
	t.Helper()
	info, err := pdf.Inspect(path, "")
	if err != nil {
		t.Fatalf("inspect %s: %v", path, err)
	}
	return info.Pages
}

// onlyFiles fails unless dir holds exactly names: nothing half-written
// stays behind.
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// TestOperations: each operation gives what pdf's own function gives,
// on one warm helper.
func TestOperations(t *testing.T) {
	p := New(Options{Helpers: 1})
	defer p.Close()
	ctx := context.Background()
	dir := t.TempDir()
	three := genPDF(t, t.TempDir(), func(w io.Writer) error { return pdfgen.Pages(w, 3) })
	out := filepath.Join(dir, "out.pdf")

	if err := p.Apply(ctx, time.Minute, three, out, pdf.Post{Metadata: &pdf.Metadata{Title: "T"}, Rotate: &pdf.Rotation{Angle: 90}}); err != nil {
		t.Fatal(err)
	}
	if m, err := p.ReadMetadata(ctx, time.Minute, out); err != nil || m["Title"] != "T" {
		t.Errorf("Apply then ReadMetadata: %v, %v; want Title T", m, err)
	}
	if err := p.PassThrough(ctx, time.Minute, three, out); err != nil || pages(t, out) != 3 {
		t.Errorf("PassThrough: %v", err)
	}
	if err := p.Merge(ctx, time.Minute, []string{three, three}, out); err != nil || pages(t, out) != 6 {
		t.Errorf("Merge: %v", err)
	}
	splitDir := filepath.Join(dir, "split")
	os.Mkdir(splitDir, 0o700)
	parts, err := p.Split(ctx, time.Minute, out, splitDir, pdf.SplitSpec{Mode: "intervals", Span: "2"})
	if err != nil || len(parts) != 3 || filepath.Base(parts[2]) != "out_2.pdf" || pages(t, parts[2]) != 2 {
		t.Errorf("Split: %q, %v; want 3 parts of 2 pages, out_0.pdf...", parts, err)
	}
	onlyFiles(t, splitDir, "out_0.pdf", "out_1.pdf", "out_2.pdf")
	if c, err := p.PDFA(ctx, time.Minute, out); err != nil || c.Part != 0 {
		t.Errorf("PDFA: %+v, %v; want part 0", c, err)
	}
	img := filepath.Join(dir, "img.png")
	writePNG(t, img)
	if err := p.FromImages(ctx, time.Minute, []string{img}, out); err != nil || pages(t, out) != 1 {
		t.Errorf("FromImages: %v", err)
	}
	onlyFiles(t, dir, "img.png", "out.pdf", "split")
	if st := p.Stats(); st.Started != 1 || st.Operations != 7 || st.PeakRSS == 0 {
		t.Errorf("stats %+v, want 1 helper for 7 operations and a peak", st)
	}
}

func writePNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 20, 10))
	img.Set(0, 0, color.NRGBA{255, 0, 0, 255})
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestErrorsCross: what callers branch on reaches them from the helper.
func TestErrorsCross(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "out.pdf")
	tests := []struct {
		name string
		err  error
		is   error
	}{
		{"encrypted", p.PassThrough(ctx, 0, testFile(t, "testPassword4Spaces.pdf"), out), pdf.ErrEncrypted},
		{"missing", p.PassThrough(ctx, 0, filepath.Join(t.TempDir(), "none.pdf"), out), fs.ErrNotExist},
		{"image too large", p.FromImages(ctx, 0, []string{hugePNG(t)}, out), pdf.ErrImageTooLarge},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.is) {
			t.Errorf("%s: got %v, want an error that is %v", tt.name, tt.err, tt.is)
		}
	}
	_, err := p.Split(ctx, 0, testFile(t, "pages_3.pdf"), t.TempDir(), pdf.SplitSpec{Mode: "intervals", Span: "x"})
	var fe *pdf.FieldError
	if !errors.As(err, &fe) || fe.Field != "splitSpan" {
		t.Errorf("bad split span: got %v, want a *pdf.FieldError of splitSpan", err)
	}
}

// hugePNG is a PNG whose header declares 100,000 × 100,000 pixels.
func hugePNG(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "huge.png")
	f, _ := os.Create(path)
	png.Encode(f, image.NewGray(image.Rect(0, 0, 1, 1)))
	f.Close()
	b, _ := os.ReadFile(path)
	// IHDR's width and height at bytes 16-23, then its CRC.
	copy(b[16:24], []byte{0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0})
	binary.BigEndian.PutUint32(b[29:33], crc32.ChecksumIEEE(b[12:29]))
	os.WriteFile(path, b, 0o600)
	return path
}

// TestStops: a helper is killed, and the operation fails with its
// reason, when its time passes, when its memory grows over the limit and
// when its context ends; it leaves nothing beside the output, and the
// next operation gets a new helper.
func TestStops(t *testing.T) {
	big := genPDF(t, t.TempDir(), func(w io.Writer) error { return pdfgen.Pages(w, 100000) })
	bomb := filepath.Join(t.TempDir(), "bomb.pdf")
	if err := pdfgen.WriteFile(bomb, func(w io.Writer) error { return pdfgen.Inflating(w, 1<<30) }); err != nil {
		t.Fatal(err)
	}
	rotate := pdf.Post{Rotate: &pdf.Rotation{Angle: 90}}
	watermark := pdf.Post{Watermark: &pdf.Watermark{Text: "calq"}}
	tests := []struct {
		name  string
		limit time.Duration
		mem   int64
		run   func(ctx context.Context, p *Pool, out string) error
		want  string
		is    error
	}{
		{"100,000 pages rotated, 2s", 2 * time.Second, 0, func(ctx context.Context, p *Pool, out string) error {
			return p.Apply(ctx, 2*time.Second, big, out, rotate)
		}, "took longer than the file timeout of 2s", sched.ErrTimeout},
		{"1 GiB stream watermarked, 256 MiB", 0, 256 << 20, func(ctx context.Context, p *Pool, out string) error {
			return p.Apply(ctx, 0, bomb, out, watermark)
		}, "needs more than 256 MiB of memory to process", ErrMemoryLimit},
		{"cancelled", 0, 0, func(ctx context.Context, p *Pool, out string) error {
			ctx, cancel := context.WithCancelCause(ctx)
			time.AfterFunc(500*time.Millisecond, func() { cancel(errors.New("the test's cancellation")) })
			return p.Apply(ctx, 0, big, out, rotate)
		}, "the test's cancellation", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(Options{Helpers: 1, MemoryLimit: tt.mem})
			defer p.Close()
			dir := t.TempDir()
			err := tt.run(context.Background(), p, filepath.Join(dir, "out.pdf"))
			if err == nil || !strings.Contains(err.Error(), tt.want) || tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			onlyFiles(t, dir)
			if st := p.Stats(); st.Stopped != 1 {
				t.Errorf("stats %+v, want 1 stopped", st)
			}
			if err := p.PassThrough(context.Background(), 0, testFile(t, "pages_3.pdf"), filepath.Join(dir, "ok.pdf")); err != nil {
				t.Errorf("the next operation: %v", err)
			}
			if st := p.Stats(); st.Started != 2 {
				t.Errorf("stats %+v, want a second helper", st)
			}
		})
	}
}

// TestCrash: a helper that dies on its own fails the operation with
// what it said, and the next one gets a new helper.
func TestCrash(t *testing.T) {
	p := New(Options{Helpers: 1})
	defer p.Close()
	_, err := p.run(context.Background(), 0, request{Op: "panic", In: []string{"x"}})
	var ce *CrashError
	if !errors.As(err, &ce) || ce.Said != "panic: the test's panic" || !strings.Contains(ce.How, "exit status 2") {
		t.Fatalf("got %v, want a *CrashError saying the panic", err)
	}
	if err := p.PassThrough(context.Background(), 0, testFile(t, "pages_3.pdf"), filepath.Join(t.TempDir(), "ok.pdf")); err != nil {
		t.Errorf("the next operation: %v", err)
	}
}

// TestGrowthStopped: a helper growing by 1.6 GB a second, faster than
// pdfcpu does, is stopped for its memory; how far it got is logged.
func TestGrowthStopped(t *testing.T) {
	const limit = 200 << 20
	p := New(Options{Helpers: 1, MemoryLimit: limit})
	defer p.Close()
	_, err := p.run(context.Background(), 0, request{Op: "grow", In: []string{"x"}})
	var me *MemoryError
	if !errors.As(err, &me) || me.Limit != limit || me.Used <= limit {
		t.Fatalf("got %v, want a *MemoryError over %d", err, limit)
	}
	t.Logf("stopped at %d MiB, peak %d MiB", me.Used>>20, p.Stats().PeakRSS>>20)
}

// TestWaitsForAHelper: with one helper, a second operation waits for
// the first, and the wait is bounded by its context, not by its limit.
func TestWaitsForAHelper(t *testing.T) {
	p := New(Options{Helpers: 1})
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := p.run(ctx, 0, request{Op: "block", In: []string{"x"}})
		done <- err
	}()
	for p.busy() == 0 {
		runtime.Gosched()
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer wcancel()
	if _, err := p.run(wctx, time.Nanosecond, request{Op: "block", In: []string{"x"}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting: got %v, want its context's deadline", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("first: got %v, want cancelled", err)
	}
	if st := p.Stats(); st.Started != 1 {
		t.Errorf("stats %+v, want one helper", st)
	}
}

func TestClosed(t *testing.T) {
	p := New(Options{})
	p.Close()
	if err := p.PassThrough(context.Background(), 0, testFile(t, "pages_3.pdf"), filepath.Join(t.TempDir(), "ok.pdf")); !errors.Is(err, ErrClosed) {
		t.Errorf("got %v, want ErrClosed", err)
	}
}
