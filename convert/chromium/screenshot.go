package chromium

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// maxScreenshotSide bounds a screenshot's viewport, in CSS pixels, so
// that no request makes the browser paint an unbounded bitmap.
const maxScreenshotSide = 16384

// check refuses options Chromium would refuse or misread.
func (o Screenshot) check() error {
	switch {
	case o.Width <= 0 || o.Height <= 0 || o.Width > maxScreenshotSide || o.Height > maxScreenshotSide:
		return fmt.Errorf("screenshot size %d x %d: want 1 to %d each", o.Width, o.Height, maxScreenshotSide)
	case o.Format != "png" && o.Format != "jpeg" && o.Format != "webp":
		return fmt.Errorf("screenshot format %q: want png, jpeg or webp", o.Format)
	case o.Quality < 0 || o.Quality > 100:
		return fmt.Errorf("screenshot quality %d: want 0 to 100", o.Quality)
	case o.DeviceScaleFactor <= 0 || o.DeviceScaleFactor > 8:
		return fmt.Errorf("screenshot device scale factor %g: want above 0, at most 8", o.DeviceScaleFactor)
	}
	return nil
}

// viewport sets the tab's viewport before the page loads: the layout
// depends on it.
func (t *tab) viewport(o Screenshot) error {
	_, err := call(t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(o.Width), Height: int64(o.Height), DeviceScaleFactor: o.DeviceScaleFactor})
	if err != nil {
		return fmt.Errorf("set the viewport: %w", err)
	}
	return nil
}

// screenshot captures the loaded page to out.
func (t *tab) screenshot(o Screenshot, out string) error {
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormat(o.Format),
		OptimizeForSpeed: ptr(o.OptimizeForSpeed), CaptureBeyondViewport: ptr(!o.Clip || o.Selector != "")}
	if o.Format != "png" {
		p.Quality = ptr(int64(o.Quality))
	}
	clip, err := t.clip(o)
	if err != nil {
		return err
	}
	p.Clip = clip
	res, err := call(t, page.CaptureScreenshot, p)
	if err != nil {
		return fmt.Errorf("capture the screenshot: %w", err)
	}
	return writeAtomic(out, func(w io.Writer) error { _, err := w.Write(res.Data); return err })
}

// clip returns the area to capture: the selector's element, the viewport
// (Clip), or the whole page.
func (t *tab) clip(o Screenshot) (*page.Viewport, error) {
	expr := "(() => { const e = document.documentElement; return {x: 0, y: 0, width: Math.max(e.scrollWidth, " +
		strconv.Itoa(o.Width) + "), height: Math.max(e.scrollHeight, " + strconv.Itoa(o.Height) + ")}; })()"
	switch {
	case o.Selector != "":
		expr = "(() => { const e = document.querySelector(" + strconv.Quote(o.Selector) + "); if (!e) return null;" +
			" const r = e.getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; })()"
	case o.Clip:
		return &page.Viewport{Width: float64(o.Width), Height: float64(o.Height), Scale: 1}, nil
	}
	res, err := call(t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: ptr(true)})
	if err != nil {
		return nil, fmt.Errorf("measure the page: %w", err)
	}
	if d := res.ExceptionDetails; d != nil {
		return nil, fmt.Errorf("%w: %q: %s", ErrInvalidSelector, o.Selector, exceptionText(d))
	}
	var v *page.Viewport
	if res.Result == nil || json.Unmarshal(res.Result.Value, &v) != nil || v == nil {
		return nil, fmt.Errorf("screenshot: no element matches %q", o.Selector)
	}
	if v.Width <= 0 || v.Height <= 0 {
		return nil, fmt.Errorf("screenshot: the element of %q has no size", o.Selector)
	}
	v.Scale = 1
	return v, nil
}
