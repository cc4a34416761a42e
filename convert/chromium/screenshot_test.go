package chromium

import (
	"bytes"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestScreenshotOptions captures pages with each kind of screenshot
// option and checks the image's format and size.
func TestScreenshotOptions(t *testing.T) {
	p := shared.get(t)
	dir := t.TempDir()
	tall := writePage(t, dir, "tall.html", `<html><body style="margin:0"><div style="height:1500px">tall</div>
<div id="box" style="width:120px;height:70px;background:red">box</div></body></html>`)
	with := func(f func(*Screenshot)) Screenshot { o := DefaultScreenshot(); f(&o); return o }
	tests := []struct {
		name          string
		o             Screenshot
		format        string
		width, height int // pixels; height 0: taller than the viewport
	}{
		{"full page png", DefaultScreenshot(), "png", 800, 0},
		{"clip", with(func(o *Screenshot) { o.Clip = true }), "png", 800, 600},
		{"size", with(func(o *Screenshot) { o.Width, o.Height, o.Clip = 400, 300, true }), "png", 400, 300},
		{"device scale factor", with(func(o *Screenshot) { o.Width, o.Height, o.Clip, o.DeviceScaleFactor = 400, 300, true, 2 }), "png", 800, 600},
		{"jpeg", with(func(o *Screenshot) { o.Format, o.Quality, o.Clip = "jpeg", 50, true }), "jpeg", 800, 600},
		{"webp", with(func(o *Screenshot) { o.Format, o.Quality, o.Clip = "webp", 80, true }), "webp", 0, 0},
		{"selector", with(func(o *Screenshot) { o.Selector = "#box" }), "png", 120, 70},
		{"optimize for speed", with(func(o *Screenshot) { o.OptimizeForSpeed, o.Clip = true, true }), "png", 800, 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			r := Request{URL: tall, Dir: dir, Load: Load{SkipNetworkIdleEvent: true, SkipNetworkAlmostIdleEvent: true}}
			if err := p.Screenshot(t.Context(), r, tt.o, out); err != nil {
				t.Fatalf("Screenshot: %v", err)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if tt.format == "webp" {
				if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
					t.Fatalf("got %q..., want a WebP file", b[:min(len(b), 12)])
				}
				return
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if format != tt.format {
				t.Errorf("got format %s, want %s", format, tt.format)
			}
			if cfg.Width != tt.width || tt.height > 0 && cfg.Height != tt.height || tt.height == 0 && cfg.Height < 1500 {
				t.Errorf("got %d x %d pixels, want %d x %d (0: at least 1500)", cfg.Width, cfg.Height, tt.width, tt.height)
			}
		})
	}
}

// TestScreenshotOmitBackground: with OmitBackground, a page without a
// background of its own is transparent.
func TestScreenshotOmitBackground(t *testing.T) {
	p := shared.get(t)
	dir := t.TempDir()
	url := writePage(t, dir, "plain.html", "<html><body>plain</body></html>")
	for _, omit := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "out.png")
		o := DefaultScreenshot()
		o.Clip = true
		r := Request{URL: url, Dir: dir, Load: Load{OmitBackground: omit, SkipNetworkIdleEvent: true, SkipNetworkAlmostIdleEvent: true}}
		if err := p.Screenshot(t.Context(), r, o, out); err != nil {
			t.Fatalf("Screenshot: %v", err)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		_, _, _, a := img.At(700, 500).RGBA()
		if got := a == 0; got != omit {
			t.Errorf("omit background %v: corner alpha %d, transparent %v", omit, a, got)
		}
	}
}
