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
// watermark's text and description (parsed by pdfcpu as Apply parses
// them), its image file, and the passwords.
func (p Post) Check() error {
	if err := p.check(); err != nil {
		return err
	}
	if w := p.Watermark; w != nil {
		return w.Check()
	}
	return nil
}

// Check parses the watermark's description with pdfcpu and looks at its
// image file.
func (wm *Watermark) Check() error {
	if wm.Image != "" {
		fi, err := os.Stat(wm.Image)
		if err != nil {
			return fmt.Errorf("watermark image: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("watermark image %s: not a regular file", wm.Image)
		}
		switch strings.ToLower(filepath.Ext(wm.Image)) {
		case ".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".gif", ".bmp":
		default:
			return fmt.Errorf("watermark image %s: want a PDF, PNG, JPEG, TIFF, WebP, GIF or BMP", wm.Image)
		}
	}
	err := protect("watermark", func() (err error) {
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
		return fmt.Errorf("watermark style %q: %w", wm.Style, err)
	}
	return nil
}
