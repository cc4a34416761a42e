package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"

	"github.com/chromedp/chromedp"
)

// Screenshot saves the tab's viewport (1280×800) as a PNG file at path.
func Screenshot(ctx context.Context, path string) error {
	data, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return fmt.Errorf("taking a screenshot: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("saving a screenshot: %w", err)
	}
	return nil
}

// ElementPNG returns a PNG of the element sel once it is visible,
// scrolled into view first if need be.
func ElementPNG(ctx context.Context, sel string) ([]byte, error) {
	data, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		return nil, fmt.Errorf("taking a screenshot of %s: %w", sel, err)
	}
	return data, nil
}

// Ink describes how much of a picture is drawn: its size and how many of
// its pixels are not (nearly) white. A blank page has Drawn 0.
type Ink struct {
	Size  image.Point
	Drawn int
}

// MeasureInk decodes a PNG and counts its pixels that are not nearly
// white (any channel below 0xF0 of 0xFF) and not transparent.
func MeasureInk(data []byte) (Ink, error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return Ink{}, fmt.Errorf("decoding a PNG: %w", err)
	}
	b := img.Bounds()
	ink := Ink{Size: b.Size()}
	const light = 0xF0 << 8
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if a > 0 && (r < light || g < light || bl < light) {
				ink.Drawn++
			}
		}
	}
	return ink, nil
}

// FullScreenshot saves the whole page, not only the viewport, as a PNG
// file at path: as tall as the page, as wide as the viewport.
func FullScreenshot(ctx context.Context, path string) error {
	data, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return fmt.Errorf("taking a screenshot of the page: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("saving a screenshot: %w", err)
	}
	return nil
}
