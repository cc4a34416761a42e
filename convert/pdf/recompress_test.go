package pdf

import (
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// photo is a photograph-like picture: smooth colour fields with grain,
// which PNG (and a PDF's Flate) keeps at full size and JPEG does not.
func photo(w, h int, seed uint64) *image.NRGBA {
	r := rand.New(rand.NewPCG(seed, seed))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := func(base float64) uint8 {
				return uint8(math.Max(0, math.Min(255, base+r.NormFloat64()*6)))
			}
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			img.Set(x, y, color.NRGBA{n(200 * fx), n(120 + 100*math.Sin(6*fy)), n(255 * (1 - fx*fy)), 255})
		}
	}
	return img
}

// imageHeavy makes a PDF of several large photo-like images, stored
// losslessly.
func imageHeavy(t *testing.T, dir string, n int) string {
	t.Helper()
	var imgs []string
	for i := range n {
		imgs = append(imgs, writeImage(t, dir, filepath.Join("", string(rune('a'+i))+".png"), photo(900, 600, uint64(i+1)), png.Encode))
	}
	out := filepath.Join(dir, "heavy.pdf")
	if err := FromImages(context.Background(), imgs, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// imageSizes lists the width and height of each image XObject.
func imageSizes(t *testing.T, path string) [][2]int {
	t.Helper()
	ctx, err := readContext(path, "", model.VALIDATE)
	if err != nil {
		t.Fatal(err)
	}
	var sizes [][2]int
	for _, e := range ctx.Table {
		if sd, ok := e.Object.(types.StreamDict); ok && e != nil && !e.Free {
			if st := sd.Subtype(); st != nil && *st == "Image" {
				sizes = append(sizes, [2]int{*sd.IntEntry("Width"), *sd.IntEntry("Height")})
			}
		}
	}
	return sizes
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestImagesShrink: an image-heavy PDF comes out well under half its
// size, its pages and images all there.
func TestImagesShrink(t *testing.T) {
	dir := t.TempDir()
	in := imageHeavy(t, dir, 3)
	for _, tt := range []struct {
		name  string
		post  Post
		ratio float64 // the largest output / input size accepted
	}{
		{"quality 80", Post{Images: &Images{Quality: 80}}, 0.4},
		{"quality 40 and optimize", Post{Images: &Images{Quality: 40}, Optimize: true}, 0.25},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			if err := Apply(context.Background(), in, out, tt.post); err != nil {
				t.Fatal(err)
			}
			got, was := fileSize(t, out), fileSize(t, in)
			t.Logf("%d bytes from %d", got, was)
			if float64(got) > tt.ratio*float64(was) {
				t.Errorf("got %d bytes from %d, want at most %.0f%%", got, was, 100*tt.ratio)
			}
			if p := inspect(t, out, "").Pages; p != 3 {
				t.Errorf("got %d pages, want 3", p)
			}
			if sizes := imageSizes(t, out); len(sizes) != 3 || sizes[0] != [2]int{900, 600} {
				t.Errorf("got images %v, want 3 of 900×600", sizes)
			}
		})
	}
}

// TestImagesMaxResolution: an image larger than its page at the
// resolution asked for is scaled down to it.
func TestImagesMaxResolution(t *testing.T) {
	dir := t.TempDir()
	big := writeImage(t, dir, "big.png", photo(2000, 1000, 7), png.Encode)
	marked := filepath.Join(dir, "marked.pdf")
	if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), marked, Post{Watermark: &Watermark{Image: big}}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.pdf")
	if err := Apply(context.Background(), marked, out, Post{Images: &Images{Quality: 80, MaxResolution: 50}}); err != nil {
		t.Fatal(err)
	}
	side := 0
	for _, s := range imageSizes(t, out) {
		side = max(side, s[0], s[1])
	}
	ctx, err := readContext(out, "", model.VALIDATE)
	if err != nil {
		t.Fatal(err)
	}
	want := int(math.Ceil(largestPageSide(ctx) / 72 * 50))
	if side == 0 || side > want {
		t.Errorf("got an image of %d pixels on its longer side, want at most %d", side, want)
	}
}

// TestImagesLeaveAlone: a PDF without images, and bad options.
func TestImagesLeaveAlone(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.pdf")
	if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, Post{Images: &Images{Quality: 80}}); err != nil {
		t.Fatalf("a PDF without images: %v", err)
	}
	for _, o := range []Images{{Quality: 0}, {Quality: 101}, {Quality: 50, MaxResolution: -1}} {
		var fe *FieldError
		if err := (Post{Images: &o}).Check(); !errors.As(err, &fe) {
			t.Errorf("Check(%+v) = %v, want a FieldError", o, err)
		}
	}
}
