package chromium

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdpio "github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// check refuses options Chromium would refuse or misread.
func (o PDF) check() error {
	switch {
	case o.Scale < 0.1 || o.Scale > 2:
		return fmt.Errorf("pdf scale %g: want 0.1 to 2", o.Scale)
	case o.PaperWidth <= 0 || o.PaperHeight <= 0:
		return fmt.Errorf("pdf paper %g x %g inches: want both above 0", o.PaperWidth, o.PaperHeight)
	case o.MarginTop < 0 || o.MarginBottom < 0 || o.MarginLeft < 0 || o.MarginRight < 0:
		return fmt.Errorf("pdf margins %g %g %g %g inches: want none below 0", o.MarginTop, o.MarginRight, o.MarginBottom, o.MarginLeft)
	case o.MarginLeft+o.MarginRight >= o.PaperWidth || o.MarginTop+o.MarginBottom >= o.PaperHeight && !o.SinglePage:
		return fmt.Errorf("pdf margins leave no room on paper of %g x %g inches", o.PaperWidth, o.PaperHeight)
	}
	return nil
}

// emptyTemplate is the header or footer printed when only the other is
// given: Chromium's default would print the date and title there.
const emptyTemplate = "<html><head></head><body></body></html>"

// params turns o into Page.printToPDF's parameters.
func (o PDF) params() page.PrintToPDFParams {
	p := page.PrintToPDFParams{
		Landscape: ptr(o.Landscape), PrintBackground: ptr(o.PrintBackground), Scale: o.Scale,
		PaperWidth: o.PaperWidth, PaperHeight: o.PaperHeight,
		MarginTop: ptr(o.MarginTop), MarginBottom: ptr(o.MarginBottom),
		MarginLeft: ptr(o.MarginLeft), MarginRight: ptr(o.MarginRight),
		PageRanges: o.PageRanges, PreferCSSPageSize: ptr(o.PreferCSSPageSize),
		GenerateTaggedPDF: ptr(o.GenerateTaggedPDF), GenerateDocumentOutline: ptr(o.GenerateDocumentOutline),
		TransferMode: page.PrintToPDFTransferModeReturnAsStream,
	}
	if o.HeaderHTML != "" || o.FooterHTML != "" {
		p.DisplayHeaderFooter = ptr(true)
		p.HeaderTemplate = cmpOrString(o.HeaderHTML, emptyTemplate)
		p.FooterTemplate = cmpOrString(o.FooterHTML, emptyTemplate)
	}
	return p
}

func cmpOrString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// printPDF prints the loaded page and streams the PDF to out.
func (t *tab) printPDF(o PDF, out string) error {
	p := o.params()
	if o.SinglePage {
		w, h, err := t.contentSize(o)
		if err != nil {
			return err
		}
		// A pixel more than the content: a size rounded down spills a
		// line onto a second page. Landscape swaps the paper's sides, so
		// there the paper's width is the page's height, and its height
		// the page's width, grown to the content (a wide table) rather
		// than cut. Page breaks the page asks for (page-break-after)
		// still make more pages: only the first is printed.
		if o.Landscape {
			p.PaperWidth = (h+1)*o.Scale/96 + o.MarginTop + o.MarginBottom
			p.PaperHeight = (w+1)*o.Scale/96 + o.MarginLeft + o.MarginRight
		} else {
			p.PaperHeight = (h+1)*o.Scale/96 + o.MarginTop + o.MarginBottom
		}
		p.PageRanges = "1"
	}
	res, err := call(t, page.PrintToPDF, p)
	if err != nil {
		if o.PageRanges != "" && strings.Contains(strings.ToLower(err.Error()), "range") {
			return fmt.Errorf("%w: %q: %v", ErrPageRanges, o.PageRanges, err)
		}
		return fmt.Errorf("print to pdf: %w", err)
	}
	return writeAtomic(out, func(w io.Writer) error { return t.readStream(res.Stream, w) })
}

// streamChunk is how much of the PDF one IO.read asks for.
const streamChunk = 1 << 20

// readStream copies a browser stream to w and closes it.
func (t *tab) readStream(h cdpio.StreamHandle, w io.Writer) error {
	defer call(t, cdpio.Close, cdpio.CloseParams{Handle: h})
	for {
		r, err := call(t, cdpio.Read, cdpio.ReadParams{Handle: h, Size: streamChunk})
		if err != nil {
			return fmt.Errorf("read the pdf: %w", err)
		}
		if _, err := w.Write(r.Data); err != nil {
			return err
		}
		if r.EOF {
			return nil
		}
	}
}

// contentSize lays the page out at the paper's printable width and
// returns the content's width and height in CSS pixels.
func (t *tab) contentSize(o PDF) (w, h float64, err error) {
	width := o.PaperWidth
	if o.Landscape {
		width = o.PaperHeight
	}
	px := int64((width - o.MarginLeft - o.MarginRight) * 96 / o.Scale)
	if _, err := call(t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: px, Height: 600, DeviceScaleFactor: 1}); err != nil {
		return 0, 0, fmt.Errorf("measure the page: %w", err)
	}
	defer call(t, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
	res, err := call(t, runtime.Evaluate, runtime.EvaluateParams{ReturnByValue: ptr(true),
		Expression: "(() => { const d = document.documentElement, b = document.body; " +
			"return [Math.max(d.scrollWidth, b ? b.scrollWidth : 0), Math.max(d.scrollHeight, b ? b.scrollHeight : 0)]; })()"})
	if err != nil || res.Result == nil {
		return 0, 0, fmt.Errorf("measure the page: %v", err)
	}
	var size [2]float64
	if err := json.Unmarshal(res.Result.Value, &size); err != nil {
		return 0, 0, fmt.Errorf("measure the page: %w", err)
	}
	return size[0], size[1], nil
}

// writeAtomic writes out through a temporary file beside it, renamed
// into place once whole: a failure leaves nothing at out.
func writeAtomic(out string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), out)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
