package form

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"calq/convert/chromium"
)

// calq's bounds on what a page is printed on or captured to, where
// Gotenberg has none.
const (
	maxPaper    = 200       // inches (5 m), a paper's width or height
	maxTemplate = 1 << 20   // bytes, header.html or footer.html
	maxShotSide = 10000     // CSS pixels, a screenshot's width or height
	maxShotDPR  = 4         // a screenshot's device scale factor
	maxPageNum  = 1<<31 - 1 // the largest page number of nativePageRanges
	anyLength   = math.MaxFloat64
)

// printing reads how the page is printed, in Gotenberg's order and with
// its defaults (chromium.DefaultPDF).
func (f *Form) printing() chromium.PDF {
	d := chromium.DefaultPDF()
	return chromium.PDF{
		Landscape:               f.Bool("landscape"),
		PrintBackground:         f.Bool("printBackground"),
		Scale:                   f.Float("scale", d.Scale, 0.1, 2), // Chromium's bounds
		SinglePage:              f.Bool("singlePage"),
		PaperWidth:              f.Inches("paperWidth", d.PaperWidth, maxPaper),
		PaperHeight:             f.Inches("paperHeight", d.PaperHeight, maxPaper),
		MarginTop:               f.Inches("marginTop", d.MarginTop, anyLength),
		MarginBottom:            f.Inches("marginBottom", d.MarginBottom, anyLength),
		MarginLeft:              f.Inches("marginLeft", d.MarginLeft, anyLength),
		MarginRight:             f.Inches("marginRight", d.MarginRight, anyLength),
		PageRanges:              f.Value("nativePageRanges"),
		HeaderHTML:              f.template("header.html"),
		FooterHTML:              f.template("footer.html"),
		PreferCSSPageSize:       f.Bool("preferCssPageSize"),
		GenerateDocumentOutline: f.Bool("generateDocumentOutline"),
		GenerateTaggedPDF:       f.Bool("generateTaggedPdf"),
	}
}

// template is the content of the uploaded file name (header.html,
// footer.html), "" when there is none.
func (f *Form) template(name string) string {
	file, ok := f.upload(name)
	if !ok {
		return ""
	}
	b, err := readAtMost(file.Path, maxTemplate)
	if err != nil {
		f.fail(badRequest("form file '%s' is invalid (%v)", name, err))
		return ""
	}
	return string(b)
}

// readAtMost reads the file at path, which must hold at most max bytes.
func readAtMost(path string, max int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, errors.New("it could not be read")
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	switch {
	case err != nil:
		return nil, errors.New("it could not be read")
	case int64(len(b)) > max:
		return nil, fmt.Errorf("over calq's %s", size(max))
	}
	return b, nil
}

// screenshot reads how the page is captured, in Gotenberg's order and
// with its defaults (chromium.DefaultScreenshot).
func (f *Form) screenshot() chromium.Screenshot {
	d := chromium.DefaultScreenshot()
	return chromium.Screenshot{
		Width:    f.IntRange("width", d.Width, 1, maxShotSide),
		Height:   f.IntRange("height", d.Height, 1, maxShotSide),
		Clip:     f.Bool("clip"),
		Selector: f.Value("selector"),
		Format:   f.shotFormat(d.Format),
		Quality: f.IntCheck("quality", d.Quality, func(n int) error {
			if n < 0 {
				return errors.New("value is negative") // Gotenberg's words
			}
			return inRange(n, 0, 100)
		}),
		OptimizeForSpeed:  f.Bool("optimizeForSpeed"),
		DeviceScaleFactor: f.Float("deviceScaleFactor", d.DeviceScaleFactor, 0.1, maxShotDPR),
	}
}

// shotFormat reads format: "png", "jpeg" or "webp", in lower case as
// Gotenberg wants them.
func (f *Form) shotFormat(def string) string {
	switch v := f.Value("format"); v {
	case "":
		return def
	case "png", "jpeg", "webp":
		return v
	}
	f.invalidBecause("format", errors.New("wrong value, expected either 'png', 'jpeg' or 'webp'")) // Gotenberg's words
	return def
}

// checkURL refuses, in Gotenberg's sentences, a url that does not parse
// or that is a file:// URL; and, in calq's, one that is not http:// or
// https:// (a page of the browser itself, javascript:, data:...).
func (f *Form) checkURL(raw string) {
	if raw == "" {
		return
	}
	u, err := url.Parse(raw)
	var ue *url.Error
	switch {
	case errors.As(err, &ue):
		// url.Error's words, the URL cut as quote cuts it.
		f.failLate(&Error{Status: http.StatusBadRequest, Msg: "Invalid URL: " + ue.Op + " " + strconv.Quote(strings.Trim(quote(raw), "'")) + ": " + ue.Err.Error()})
	case strings.EqualFold(u.Scheme, "file"):
		f.failLate(&Error{Status: http.StatusBadRequest,
			Msg: "file:// URLs are not accepted on this route. Use the /convert/html or /convert/markdown routes to render local HTML"})
	case !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") || u.Host == "":
		f.failLate(&Error{Status: http.StatusBadRequest,
			Msg: "Invalid URL: " + quote(raw) + " is not an http:// or https:// URL with a host; calq loads no other page on this route"})
	}
}

// checkPrinting refuses, in Gotenberg's sentences, what Chromium would
// refuse to print: a transparent background without the background
// printed, a paper and margins that leave nothing to print on, page
// ranges that do not parse.
func (f *Form) checkPrinting(l chromium.Load, p chromium.PDF) {
	if f.err != nil {
		return // a bad field's default says nothing of what was sent
	}
	late := func(msg string) { f.failLate(&Error{Status: http.StatusBadRequest, Msg: msg}) }
	if l.OmitBackground && !p.PrintBackground {
		late("omitBackground requires printBackground set to true")
	}
	if p.PaperWidth <= 0 || p.PaperHeight <= 0 || min(p.MarginTop, p.MarginBottom, p.MarginLeft, p.MarginRight) < 0 ||
		p.MarginLeft+p.MarginRight >= p.PaperWidth || !p.SinglePage && p.MarginTop+p.MarginBottom >= p.PaperHeight {
		late("Chromium does not handle the provided settings; please check for aberrant form values")
	}
	if !pageRangesOK(p.PageRanges) {
		late("Chromium does not handle the page ranges " + quote(p.PageRanges) + " (nativePageRanges) syntax")
	}
}

// pageRangesOK reports whether Chromium reads s as page ranges: "" (all
// pages) or a comma-separated list of N, N-M (N <= M), N- and -M, pages
// counted from 1.
func pageRangesOK(s string) bool {
	if strings.TrimSpace(s) == "" {
		return true
	}
	page := func(p string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		return n, err == nil && n >= 1 && n <= maxPageNum && !strings.ContainsAny(p, "+-")
	}
	for _, r := range strings.Split(s, ",") {
		from, to, isRange := strings.Cut(r, "-")
		if !isRange {
			if _, ok := page(from); !ok {
				return false
			}
			continue
		}
		lo, hi := 1, maxPageNum
		var ok bool
		if strings.TrimSpace(from) != "" {
			if lo, ok = page(from); !ok {
				return false
			}
		}
		if strings.TrimSpace(to) != "" {
			if hi, ok = page(to); !ok {
				return false
			}
		}
		if lo > hi {
			return false
		}
	}
	return true
}
