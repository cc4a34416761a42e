package pdf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Check rejects bad options before any file is converted, so that a
// caller can refuse them up front instead of failing every file: the
// watermark's and stamp's texts, page selections and descriptions (parsed
// by pdfcpu as Apply parses them), their image files, the rotation, the
// metadata keys and the passwords. Errors about the options Gotenberg's
// forms carry under a field name of their own are *FieldError.
func (p Post) Check() error {
	if err := p.check(); err != nil {
		return err
	}
	for _, m := range p.marks() {
		if err := m.w.checkFiles(m.name); err != nil {
			return err
		}
	}
	return nil
}

// Check parses the watermark's description with pdfcpu and looks at its
// image file.
func (wm *Watermark) Check() error {
	if _, err := pageSelection("watermarkPages", wm.Pages); err != nil {
		return err
	}
	return wm.checkFiles("watermark")
}

// checkFiles is Check for the watermark called name.
func (wm *Watermark) checkFiles(name string) error {
	if wm.Image != "" {
		fi, err := os.Stat(wm.Image)
		if err != nil {
			return fmt.Errorf("%s image: %w", name, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s image %s: not a regular file", name, wm.Image)
		}
		switch strings.ToLower(filepath.Ext(wm.Image)) {
		case ".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".gif", ".bmp":
		default:
			return fmt.Errorf("%s image %s: want a PDF, PNG, JPEG, TIFF, WebP, GIF or BMP", name, wm.Image)
		}
	}
	err := protect(name, func() (err error) {
		switch {
		case wm.Text != "":
			_, err = api.TextWatermark(wm.Text, styleOr(wm.Style, DefaultTextStyle), wm.OnTop, false, types.POINTS)
		case strings.EqualFold(filepath.Ext(wm.Image), ".pdf"):
			_, err = api.PDFWatermark(wm.Image+":1", styleOr(wm.Style, DefaultImageStyle), wm.OnTop, false, types.POINTS)
		default:
			_, err = api.ImageWatermark(wm.Image, styleOr(wm.Style, DefaultImageStyle), wm.OnTop, false, types.POINTS)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("%s style %q: %w", name, wm.Style, err)
	}
	return nil
}

// FieldError is a bad value of one option, named after the Gotenberg form
// field that carries it (rotateAngle, rotatePages, watermarkPages,
// stampPages, splitMode, splitSpan, metadata), so that a server can tell
// its client which field to fix.
type FieldError struct {
	Field string
	Value string
	Err   error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %q is invalid: %v", e.Field, e.Value, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }
