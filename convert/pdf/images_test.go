package pdf

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"golang.org/x/image/bmp"
)

// writeImage encodes img into dir/name with encode.
func writeImage(t *testing.T, dir, name string, img image.Image, encode func(io.Writer, image.Image) error) string {
	t.Helper()
	var buf bytes.Buffer
	if err := encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func encodeGIF(w io.Writer, img image.Image) error  { return gif.Encode(w, img, nil) }
func encodeJPEG(w io.Writer, img image.Image) error { return jpeg.Encode(w, img, nil) }

// encodeJPEGOriented writes a JPEG carrying an EXIF orientation tag.
func encodeJPEGOriented(o uint16) func(io.Writer, image.Image) error {
	return func(w io.Writer, img image.Image) error {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, nil); err != nil {
			return err
		}
		tiff := []byte("MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00")
		binary.BigEndian.PutUint16(tiff[18:], o)
		app1 := append([]byte("Exif\x00\x00"), tiff...)
		seg := append([]byte{0xFF, 0xE1, 0, 0}, app1...)
		binary.BigEndian.PutUint16(seg[2:], uint16(len(app1)+2))
		b := buf.Bytes()
		_, err := w.Write(append(append(append([]byte(nil), b[:2]...), seg...), b[2:]...))
		return err
	}
}

// pageSizes returns the page sizes of the PDF at path, in points.
func pageSizes(t *testing.T, path string) [][2]int {
	t.Helper()
	f := openFile(t, path)
	dims, err := api.PageDims(f, newConf(""))
	if err != nil {
		t.Fatalf("PageDims(%s): %v", path, err)
	}
	var sizes [][2]int
	for _, d := range dims {
		sizes = append(sizes, [2]int{int(d.Width + 0.5), int(d.Height + 0.5)})
	}
	return sizes
}

func TestFromImages(t *testing.T) {
	gen := t.TempDir()
	tests := []struct {
		name   string
		images []string
		pages  int
	}{
		{"png", []string{testFile(t, "testPNG.png")}, 1},
		{"jpg with exif", []string{testFile(t, "testJPEG_EXIF.jpg")}, 1},
		{"multi-page tiff", []string{testFile(t, "testTIFF_multipage.tif")}, 2},
		{"tiff", []string{testFile(t, "video-001.tiff")}, 1},
		{"webp", []string{testFile(t, "yellow_rose.lossy.webp")}, 1},
		{"gif", []string{testFile(t, "testGIF.gif")}, 1},
		{"bmp", []string{testFile(t, "video-001.bmp")}, 1},
		{"generated gif", []string{writeImage(t, gen, "g.GIF", testImage(7, 5), encodeGIF)}, 1},
		{"generated bmp", []string{writeImage(t, gen, "b.bmp", testImage(7, 5), bmp.Encode)}, 1},
		{"mixed", []string{testFile(t, "testPNG.png"), testFile(t, "testTIFF_multipage.tif"), testFile(t, "testGIF.gif")}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.pdf")
			if err := FromImages(context.Background(), tt.images, out); err != nil {
				t.Fatalf("FromImages: %v", err)
			}
			if got := inspect(t, out, "").Pages; got != tt.pages {
				t.Errorf("pages = %d, want %d", got, tt.pages)
			}
			onlyFiles(t, dir, "out.pdf")
		})
	}
}

// TestFromImagesOrder checks one page per image, in order, each the size
// of its image, and that EXIF orientation turns a JPEG upright.
func TestFromImagesOrder(t *testing.T) {
	src := t.TempDir()
	images := []string{
		writeImage(t, src, "a.png", testImage(10, 20), png.Encode),
		writeImage(t, src, "b.jpg", testImage(30, 40), encodeJPEG),
		writeImage(t, src, "c.gif", testImage(50, 60), encodeGIF),
		writeImage(t, src, "d.bmp", testImage(70, 80), bmp.Encode),
		writeImage(t, src, "e.jpeg", testImage(90, 100), encodeJPEGOriented(6)),
		writeImage(t, src, "f.jpg", testImage(110, 120), encodeJPEGOriented(3)),
	}
	out := filepath.Join(t.TempDir(), "out.pdf")
	if err := FromImages(context.Background(), images, out); err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{10, 20}, {30, 40}, {50, 60}, {70, 80}, {100, 90}, {110, 120}}
	got := pageSizes(t, out)
	if len(got) != len(want) {
		t.Fatalf("page sizes = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("page %d is %v pt, want %v", i+1, got[i], want[i])
		}
	}
}

func TestFromImagesFailure(t *testing.T) {
	src := t.TempDir()
	junk := filepath.Join(src, "junk.png")
	if err := os.WriteFile(junk, []byte("\x89PNG\r\n\x1a\nnot really"), 0o600); err != nil {
		t.Fatal(err)
	}
	junkGIF := filepath.Join(src, "junk.gif")
	if err := os.WriteFile(junkGIF, []byte("GIF89a\xff\xff\xff\xff"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		images []string
	}{
		{"none", nil},
		{"unsupported", []string{testFile(t, "testPDF.pdf")}},
		{"missing", []string{filepath.Join(src, "missing.png")}},
		{"corrupt png", []string{testFile(t, "testPNG.png"), junk}},
		{"corrupt gif", []string{junkGIF}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.pdf")
			if err := FromImages(context.Background(), tt.images, out); err == nil {
				t.Fatal("FromImages succeeded, want an error")
			}
			onlyFiles(t, dir)
		})
	}
}

func TestOrient(t *testing.T) {
	red := color.NRGBA{255, 0, 0, 255}
	tests := []struct {
		o          int
		w, h       int // of the result, from a 4×2 source
		redX, redY int // where the source's top-left pixel ends up
	}{
		{2, 4, 2, 3, 0},
		{3, 4, 2, 3, 1},
		{4, 4, 2, 0, 1},
		{5, 2, 4, 0, 0},
		{6, 2, 4, 1, 0},
		{7, 2, 4, 1, 3},
		{8, 2, 4, 0, 3},
	}
	for _, tt := range tests {
		img := orient(testImage(4, 2), tt.o)
		if b := img.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
			t.Errorf("orientation %d: size %dx%d, want %dx%d", tt.o, b.Dx(), b.Dy(), tt.w, tt.h)
			continue
		}
		if got := color.NRGBAModel.Convert(img.At(tt.redX, tt.redY)); got != red {
			t.Errorf("orientation %d: pixel (%d,%d) = %v, want red", tt.o, tt.redX, tt.redY, got)
		}
	}
}

func TestJPEGOrientation(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
		want int
		ok   bool
	}{
		{"tagged 6", writeImage(t, dir, "six.jpg", testImage(8, 8), encodeJPEGOriented(6)), 6, true},
		{"tagged 8", writeImage(t, dir, "eight.jpg", testImage(8, 8), encodeJPEGOriented(8)), 8, true},
		{"untagged", writeImage(t, dir, "plain.jpg", testImage(8, 8), encodeJPEG), 0, false},
		{"corpus exif without orientation", testFile(t, "testJPEG_EXIF.jpg"), 0, false},
		{"not a jpeg", testFile(t, "testPNG.png"), 0, false},
	}
	for _, tt := range tests {
		got, err := jpegOrientation(tt.path)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%s: jpegOrientation = %d, %v; want %d, ok %v", tt.name, got, err, tt.want, tt.ok)
		}
	}
}

func FuzzEXIFOrientation(f *testing.F) {
	f.Add([]byte("MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00"))
	f.Add([]byte("II\x2a\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x03\x00"))
	f.Add([]byte("MM\x00\x2a\xff\xff\xff\xf0"))
	f.Fuzz(func(t *testing.T, tiff []byte) {
		if o, err := exifOrientation(tiff); err == nil && (o < 0 || o > 0xFFFF) {
			t.Errorf("orientation %d out of range", o)
		}
		_, _ = exifSegment(bytes.NewReader(tiff))
	})
}
