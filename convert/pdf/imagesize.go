package pdf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strings"

	_ "golang.org/x/image/webp" // DecodeConfig of WebP
)

// ErrImageTooLarge is the error (reached with errors.Is) of an image whose
// page or frame declares more pixels than calq decodes: the same file
// fails again, so it is never retried.
var ErrImageTooLarge = errors.New("image too large")

// ErrImageDamaged is the error (reached with errors.Is) of an image whose
// header cannot be read or declares no pixels (0×0).
var ErrImageDamaged = errors.New("image damaged")

// ImageError is CheckImageSize's refusal of an image: Err is
// ErrImageTooLarge or ErrImageDamaged, Why says what in words for
// people ("page 2 says it is 0×10 pixels"), Cause is the decoder's error
// if there was one.
type ImageError struct {
	Err   error
	Why   string
	Cause error
}

func (e *ImageError) Error() string {
	s := e.Err.Error() + ": " + e.Why
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

func (e *ImageError) Unwrap() []error { return []error{e.Err, e.Cause} }

const (
	maxPagePixels  = maxDecodedPixels     // one page or frame
	maxTotalPixels = 4 * maxDecodedPixels // all pages of a file together
	maxPages       = 10000                // pages of a TIFF
	maxIFDEntries  = 4096                 // tags in one TIFF directory
)

// CheckImageSize reads the dimensions every page or frame of the image at
// path declares, without decoding any, and refuses the file when one is
// over calq's limit of 100 megapixels or all together over 400: a crafted
// header must not make calq allocate gigabytes, and decoding in calq's
// own process is bounded by no timeout.
func CheckImageSize(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var dims []image.Point
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tif", ".tiff":
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		pages, err := tiffPages(f, fi.Size())
		if errors.Is(err, ErrImageTooLarge) {
			return err
		}
		if err != nil {
			return &ImageError{Err: ErrImageDamaged, Why: "its pages cannot be read", Cause: err}
		}
		for _, p := range pages {
			dims = append(dims, p.size)
		}
	default:
		cfg, _, err := image.DecodeConfig(bufio.NewReader(f))
		if err != nil {
			return &ImageError{Err: ErrImageDamaged, Why: "its header cannot be read", Cause: err}
		}
		dims = []image.Point{{cfg.Width, cfg.Height}}
	}
	return checkDims(dims)
}

func checkDims(dims []image.Point) error {
	var total int64
	for i, d := range dims {
		px := int64(d.X) * int64(d.Y)
		where, is := "it", ""
		if len(dims) > 1 {
			where = fmt.Sprintf("page %d", i+1)
			is = where + " is "
		}
		if d.X <= 0 || d.Y <= 0 {
			return &ImageError{Err: ErrImageDamaged, Why: fmt.Sprintf("%s says it is %d×%d pixels", where, d.X, d.Y)}
		}
		if px > maxPagePixels {
			return &ImageError{Err: ErrImageTooLarge, Why: fmt.Sprintf("%s%d×%d pixels, over the limit of %d megapixels a page",
				is, d.X, d.Y, maxPagePixels>>20)}
		}
		total += px
	}
	if total > maxTotalPixels {
		return &ImageError{Err: ErrImageTooLarge, Why: fmt.Sprintf("its %d pages have %d megapixels together, over the limit of %d",
			len(dims), total>>20, maxTotalPixels>>20)}
	}
	return nil
}

// tiffPage is one page of a TIFF: its size, where its directory is and
// where the directory's pointer to the next page is.
type tiffPage struct {
	size      image.Point
	ifd, next int64
	order     binary.ByteOrder
}

// tiffPages walks a TIFF's chain of image file directories and returns
// each page's ImageWidth and ImageLength. It refuses loops, more than
// maxPages pages, and directories of more than maxIFDEntries tags.
func tiffPages(r io.ReaderAt, size int64) ([]tiffPage, error) {
	var hdr [8]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	var bo binary.ByteOrder
	switch string(hdr[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return nil, errors.New("not a TIFF (no II*/MM* header)")
	}
	off := int64(bo.Uint32(hdr[4:]))
	seen := map[int64]bool{}
	var pages []tiffPage
	for off != 0 {
		if seen[off] {
			return nil, fmt.Errorf("directory %d loops back to offset %d", len(pages)+1, off)
		}
		seen[off] = true
		if len(pages) >= maxPages {
			return nil, &ImageError{Err: ErrImageTooLarge, Why: fmt.Sprintf("it has more than %d pages", maxPages)}
		}
		if off < 8 || off+2 > size {
			return nil, fmt.Errorf("directory %d at offset %d is outside the file", len(pages)+1, off)
		}
		var nb [2]byte
		if _, err := r.ReadAt(nb[:], off); err != nil {
			return nil, err
		}
		n := int64(bo.Uint16(nb[:]))
		if n > maxIFDEntries || off+2+12*n+4 > size {
			return nil, fmt.Errorf("directory %d: %d tags do not fit the file", len(pages)+1, n)
		}
		buf := make([]byte, 12*n+4)
		if _, err := r.ReadAt(buf, off+2); err != nil {
			return nil, err
		}
		var p image.Point
		for i := int64(0); i < n; i++ {
			e := buf[12*i:]
			tag, typ := bo.Uint16(e), bo.Uint16(e[2:])
			var v int
			switch typ {
			case 3: // SHORT
				v = int(bo.Uint16(e[8:]))
			case 4: // LONG
				v = int(bo.Uint32(e[8:]))
			default:
				continue
			}
			switch tag {
			case 256:
				p.X = v
			case 257:
				p.Y = v
			}
		}
		pages = append(pages, tiffPage{size: p, ifd: off, next: off + 2 + 12*n, order: bo})
		off = int64(bo.Uint32(buf[12*n:]))
	}
	if len(pages) == 0 {
		return nil, errors.New("no pages")
	}
	return pages, nil
}

// onePage presents the TIFF in f as a TIFF of its page p alone: the
// header points at p's directory and that directory at no next one. The
// file is read through, not copied.
func onePage(f io.ReaderAt, size int64, p tiffPage) io.Reader {
	var first, none [4]byte
	p.order.PutUint32(first[:], uint32(p.ifd))
	return io.MultiReader(
		io.NewSectionReader(f, 0, 4), bytes.NewReader(first[:]),
		io.NewSectionReader(f, 8, p.next-8), bytes.NewReader(none[:]),
		io.NewSectionReader(f, p.next+4, size-p.next-4))
}
