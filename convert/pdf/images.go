package pdf

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"golang.org/x/image/bmp"
)

// maxDecodedPixels bounds the images decoded in Go (gif, bmp, rotated
// jpeg) as pdfcpu bounds its own: 100 megapixels.
const maxDecodedPixels = 100 << 20

// FromImages writes a PDF at out with one page per image, in order, each
// page the size of its image (1 pixel = 1 pt). A multi-page TIFF gives one
// page per TIFF page. png, jpg, jpeg, tif, tiff and webp go to pdfcpu as
// they are; gif (first frame) and bmp are decoded in Go and re-encoded as
// PNG first; a JPEG with an EXIF orientation other than 1 is turned upright
// and re-encoded (quality 95), since pdfcpu ignores EXIF.
func FromImages(ctx context.Context, images []string, out string) error {
	if len(images) == 0 {
		return fmt.Errorf("images to pdf: no images")
	}
	return produce(ctx, "images to pdf", out, func(s *stage) (string, error) {
		var srcs []source
		for _, img := range images {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			if err := CheckImageSize(img); err != nil {
				return "", fmt.Errorf("%s: %w", img, err)
			}
			more, err := sources(s, img)
			if err != nil {
				return "", fmt.Errorf("%s: %w", img, err)
			}
			srcs = append(srcs, more...)
		}
		if len(srcs) == 1 {
			return s.write(func(w io.Writer) error { return importImage(srcs[0], w) })
		}
		// One page at a time, each written out before the next is
		// decoded, then merged: memory holds one decoded page, not all.
		parts := make([]string, len(srcs))
		for i, src := range srcs {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			p, err := s.write(func(w io.Writer) error { return importImage(src, w) })
			if err != nil {
				return "", fmt.Errorf("page %d: %w", i+1, err)
			}
			parts[i] = p
		}
		return s.write(func(w io.Writer) error {
			conf := newConf("")
			conf.Cmd = model.MERGECREATE
			return protect("merge pages", func() error { return api.Merge("", parts, w, conf, false) })
		})
	})
}

// source is one page for pdfcpu to import: a file, or one page of a
// multi-page TIFF.
type source struct {
	path string
	page *tiffPage // nil: the whole file
}

// sources are the pages of img, each ready for pdfcpu.
func sources(s *stage, img string) ([]source, error) {
	switch strings.ToLower(filepath.Ext(img)) {
	case ".tif", ".tiff":
		f, err := os.Open(img)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		pages, err := tiffPages(f, fi.Size())
		if err != nil || len(pages) == 1 {
			return []source{{path: img}}, nil
		}
		srcs := make([]source, len(pages))
		for i := range pages {
			srcs[i] = source{path: img, page: &pages[i]}
		}
		return srcs, nil
	}
	p, err := prepareImage(s, img)
	if err != nil {
		return nil, err
	}
	return []source{{path: p}}, nil
}

// importImage writes a PDF of src's one image (or every page of a TIFF
// given whole) to w.
func importImage(src source, w io.Writer) error {
	f, err := os.Open(src.path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if src.page != nil {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		r = onePage(f, fi.Size(), *src.page)
	}
	conf := newConf("")
	conf.Cmd = model.IMPORTIMAGES
	return protect("import images", func() error {
		return api.ImportImages(nil, w, []io.Reader{r}, pdfcpu.DefaultImportConfig(), conf)
	})
}

// prepareImage returns the path of a file pdfcpu can import for img.
func prepareImage(s *stage, img string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(img)); ext {
	case ".png", ".tif", ".tiff", ".webp":
		return img, nil
	case ".jpg", ".jpeg":
		return uprightJPEG(s, img)
	case ".gif":
		return reencodePNG(s, img, gif.Decode)
	case ".bmp":
		return reencodePNG(s, img, bmp.Decode)
	default:
		return "", fmt.Errorf("unsupported image type %q", ext)
	}
}

type decodeFunc func(io.Reader) (image.Image, error)

// decodeFile decodes path with decode after checking its size from the
// header, so a crafted header cannot make us allocate gigabytes.
func decodeFile(path string, decode decodeFunc) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(bufio.NewReader(f))
	if err != nil {
		return nil, &ImageError{Err: ErrImageDamaged, Why: "its header cannot be read", Cause: err}
	}
	if err := checkDims([]image.Point{{cfg.Width, cfg.Height}}); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var img image.Image
	err = protect("decode image", func() (err error) {
		img, err = decode(bufio.NewReader(f))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("decode image: %w", err)
	}
	return img, nil
}

func reencodePNG(s *stage, path string, decode decodeFunc) (string, error) {
	img, err := decodeFile(path, decode)
	if err != nil {
		return "", err
	}
	return s.writeImage(".png", func(w io.Writer) error { return png.Encode(w, img) })
}

// uprightJPEG returns path itself unless its EXIF orientation asks for a
// rotation or mirror, in which case it writes a turned copy.
func uprightJPEG(s *stage, path string) (string, error) {
	o, err := jpegOrientation(path)
	if err != nil || o <= 1 || o > 8 {
		return path, nil // no usable EXIF: pdfcpu gets the file as it is
	}
	img, err := decodeFile(path, jpeg.Decode)
	if err != nil {
		return "", err
	}
	turned := orient(img, o)
	return s.writeImage(".jpg", func(w io.Writer) error {
		return jpeg.Encode(w, turned, &jpeg.Options{Quality: 95})
	})
}

func (s *stage) writeImage(ext string, encode func(io.Writer) error) (string, error) {
	path := s.next(ext)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriter(f)
	err = encode(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}
