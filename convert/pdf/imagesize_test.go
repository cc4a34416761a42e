package pdf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tiffOf writes a little-endian TIFF whose directories declare the given
// sizes (no pixel data: enough for the size check). loopTo ≥ 0 makes the
// last directory point back at directory loopTo.
func tiffOf(sizes []image.Point, loopTo int) []byte {
	var b bytes.Buffer
	b.WriteString("II*\x00")
	binary.Write(&b, binary.LittleEndian, uint32(8))
	var offs []int
	for i, s := range sizes {
		offs = append(offs, b.Len())
		binary.Write(&b, binary.LittleEndian, uint16(2))
		for _, e := range [][2]uint32{{256, uint32(s.X)}, {257, uint32(s.Y)}} {
			binary.Write(&b, binary.LittleEndian, uint16(e[0]))
			binary.Write(&b, binary.LittleEndian, uint16(4)) // LONG
			binary.Write(&b, binary.LittleEndian, uint32(1))
			binary.Write(&b, binary.LittleEndian, e[1])
		}
		next := uint32(0)
		if i < len(sizes)-1 {
			next = uint32(b.Len() + 4)
		} else if loopTo >= 0 {
			next = uint32(offs[loopTo])
		}
		binary.Write(&b, binary.LittleEndian, next)
	}
	return b.Bytes()
}

// TestCheckImageSize: every page and frame is held to the pixel limit
// before anything is decoded; the refusal names the page and its size.
func TestCheckImageSize(t *testing.T) {
	many := make([]image.Point, maxPages+1)
	for i := range many {
		many[i] = image.Pt(10, 10)
	}
	var hugeGIF bytes.Buffer
	gif.EncodeAll(&hugeGIF, &gif.GIF{Image: []*image.Paletted{image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.Black})},
		Delay: []int{0}, Config: image.Config{Width: 60000, Height: 60000, ColorModel: color.Palette{color.Black}}})
	tests := []struct {
		name     string
		data     []byte
		want     string // "" for none
		sentinel error
	}{
		{"second page 60000x60000.tif", tiffOf([]image.Point{{100, 100}, {60000, 60000}}, -1), "page 2 is 60000×60000 pixels, over the limit of 100 megapixels a page", ErrImageTooLarge},
		{"first page too wide.tiff", tiffOf([]image.Point{{1 << 20, 200}}, -1), "image too large: 1048576×200 pixels", ErrImageTooLarge},
		{"many big pages.tif", tiffOf([]image.Point{{10000, 10000}, {10000, 10000}, {10000, 10000}, {10000, 10000}, {10000, 10000}}, -1), "its 5 pages have 476 megapixels together", ErrImageTooLarge},
		{"loop.tif", tiffOf([]image.Point{{10, 10}, {10, 10}}, 0), "directory 3 loops back", ErrImageDamaged},
		{"ten thousand pages.tif", tiffOf(many, -1), "more than 10000 pages", ErrImageTooLarge},
		{"zero width.tif", tiffOf([]image.Point{{0, 10}}, -1), "image damaged: it says it is 0×10 pixels", ErrImageDamaged},
		{"screen 60000x60000.gif", hugeGIF.Bytes(), "60000×60000 pixels", ErrImageTooLarge},
		{"not an image.png", []byte("plain text"), "its header cannot be read", ErrImageDamaged},
		{"two fine pages.tif", tiffOf([]image.Point{{2000, 3000}, {3000, 2000}}, -1), "", nil},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.data, 0o600); err != nil {
				t.Fatal(err)
			}
			err := CheckImageSize(path)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckImageSize = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckImageSize = %v, want %q", err, tt.want)
			case tt.sentinel != nil && !errors.Is(err, tt.sentinel):
				t.Errorf("CheckImageSize = %v, want errors.Is %v", err, tt.sentinel)
			}
		})
	}
	// The real multi-page TIFF of the corpus passes.
	if err := CheckImageSize("../../testdata/convert/testTIFF_multipage.tif"); err != nil {
		t.Errorf("testTIFF_multipage.tif: %v", err)
	}
}

// TestHugeTIFFPageRefusedCheaply: refusing a 60000×60000 second page
// allocates next to nothing (it is never decoded).
func TestHugeTIFFPageRefusedCheaply(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scan.tif")
	os.WriteFile(path, tiffOf([]image.Point{{100, 100}, {60000, 60000}}, -1), 0o600)
	out := filepath.Join(t.TempDir(), "scan.pdf")
	var err error
	allocs := testing.AllocsPerRun(5, func() { err = FromImages(t.Context(), []string{path}, out) })
	if !errors.Is(err, ErrImageTooLarge) {
		t.Fatalf("FromImages = %v, want ErrImageTooLarge", err)
	}
	if allocs > 2000 {
		t.Errorf("%v allocations to refuse it, want few", allocs)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an output was left: %v", err)
	}
}

// FuzzTIFFPages: the directory walk never panics, loops or reads past
// its bounds, whatever the bytes.
func FuzzTIFFPages(f *testing.F) {
	f.Add(tiffOf([]image.Point{{10, 10}, {20, 20}}, -1))
	f.Add(tiffOf([]image.Point{{10, 10}, {20, 20}}, 1))
	if b, err := os.ReadFile("../../testdata/convert/testTIFF_multipage.tif"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pages, err := tiffPages(bytes.NewReader(b), int64(len(b)))
		for _, p := range pages {
			if p.next < p.ifd || p.next+4 > int64(len(b)) {
				t.Errorf("page at %d: next pointer at %d outside the file", p.ifd, p.next)
			}
		}
		if err == nil && (len(pages) == 0 || len(pages) > maxPages) {
			t.Errorf("%d pages without an error", len(pages))
		}
	})
}
