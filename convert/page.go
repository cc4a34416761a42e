package convert

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"calq/convert/chromium"
	"calq/convert/markdown"
	"calq/sched"
)

// The HTML engines: what converts .html, .htm, .xhtml and .md files.
// EngineAuto is DefaultHTMLEngine, decided when a run has such a file.
const (
	EngineChromium    = "chromium"
	EngineLibreOffice = "libreoffice"
	EngineAuto        = "auto"
)

// DefaultHTMLEngine is Chromium when binary ("": the one on PATH) is
// found, else LibreOffice.
func DefaultHTMLEngine(binary string) string {
	if _, _, err := chromium.Find(binary); err != nil {
		return EngineLibreOffice
	}
	return EngineChromium
}

// PageConverter prints a web page to PDF, as *chromium.Pool does.
type PageConverter interface {
	PDF(ctx context.Context, r chromium.Request, o chromium.PDF, out string) error
}

// HTMLOptions say how web pages (HTML and Markdown files, URLs) become
// PDFs.
type HTMLOptions struct {
	// Engine is EngineChromium, EngineLibreOffice (or "", as calq serve's
	// LibreOffice routes want) or EngineAuto (DefaultHTMLEngine of
	// Chromium.Binary, as calq convert wants). URLs always go to Chromium.
	Engine string
	// Page is how Chromium prints (nil: chromium.DefaultPDF), Load how it
	// loads each page.
	Page *chromium.PDF
	Load chromium.Load
	// Chromium configures the run's own pool, started at the first page
	// and closed at the end of the run; Pool, when set, is used instead.
	Chromium chromium.Config
	Pool     PageConverter
	// Tabs is how many pages convert at once (0: chromium.DefaultTabs).
	Tabs int
}

// engine is the engine HTML files go to.
func (h HTMLOptions) engine() string {
	switch h.Engine {
	case "":
		return EngineLibreOffice
	case EngineAuto:
		return DefaultHTMLEngine(h.Chromium.Binary)
	}
	return h.Engine
}

// page is how Chromium prints.
func (h HTMLOptions) page() chromium.PDF {
	if h.Page == nil {
		return chromium.DefaultPDF()
	}
	return *h.Page
}

// pageExts are the extensions of the files Chromium converts.
var pageExts = map[string]bool{".html": true, ".htm": true, ".xhtml": true, ".md": true}

// isPage says whether path is named as a web page: HTML or Markdown.
func isPage(path string) bool { return pageExts[lowerExt(path)] }

// lazyChromium creates the run's pool at the first page, so that a run
// without pages never starts a browser.
type lazyChromium struct {
	o    HTMLOptions
	once sync.Once
	pool *chromium.Pool
	err  error
}

func (p *lazyChromium) get() (PageConverter, error) {
	if p.o.Pool != nil {
		return p.o.Pool, nil
	}
	p.once.Do(func() { p.pool, p.err = chromium.New(p.o.Chromium) })
	return p.pool, p.err
}

func (p *lazyChromium) close() error {
	p.once.Do(func() {}) // no start after close
	if p.pool == nil {
		return nil
	}
	return p.pool.Close()
}

// page prints the web page in (an HTML or Markdown file, item i's copy
// sniffed) to out with Chromium. An HTML file is loaded from its own
// place (not the copy), so that its relative assets load: it may read
// the files of its own directory and below, nothing else on the disk. A
// Markdown file is rendered to a page of its own in the work directory,
// which reads nothing of the disk.
func (r *runner) page(ctx context.Context, i int, in, out string, limit time.Duration) error {
	it := r.items[i]
	req := chromium.Request{Load: r.o.HTML.Load, Timeout: limit}
	switch {
	case isURL(it.Input):
		req.URL = it.Input
	case lowerExt(in) == ".md":
		html, err := r.markdownPage(i, in)
		if err != nil {
			return err
		}
		defer os.RemoveAll(filepath.Dir(html))
		req.URL, req.Dir = fileURL(html), filepath.Dir(html)
	default:
		req.URL, req.Dir = fileURL(it.Real), filepath.Dir(it.Real)
	}
	conv, err := r.chromium.get()
	if err != nil {
		return sched.Permanent(fmt.Errorf("chromium: %w", err))
	}
	return conv.PDF(ctx, req, r.o.HTML.page(), out)
}

// markdownPage renders the Markdown file md (item i's copy) into a page
// in a directory of its own under the work directory.
func (r *runner) markdownPage(i int, md string) (string, error) {
	src, err := os.ReadFile(md)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(r.work.dir, strconv.Itoa(i)+"-page")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	html := filepath.Join(dir, "index.html")
	f, err := os.Create(html)
	if err != nil {
		return "", err
	}
	title := stemOf(r.items[i].Input)
	err = markdown.Page(src, title, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", sched.Permanent(fmt.Errorf("render the Markdown: %w", err))
	}
	return html, nil
}

// fileURL is the file:// URL of an absolute path.
func fileURL(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// stemOf is a path's base name without its extension.
func stemOf(path string) string {
	b := filepath.Base(path)
	return b[:len(b)-len(filepath.Ext(b))]
}

// errNoChromium is the reason a page cannot be converted by Chromium.
var errNoChromium = errors.New("chromium is not installed; install it (Debian: apt install chromium) or use --html-engine libreoffice")

// ErrURLsShared is Check's error for URLs with the shared queue.
var ErrURLsShared = errors.New("--url and a postgres:// --db: the shared queue takes files; archive the pages on this machine")

// errors refuses an unknown engine and page options out of Chromium's
// range, naming calq convert's flags; with shared, the URLs (the shared
// queue takes files).
func (h HTMLOptions) errors(shared bool) []error {
	var errs []error
	if e := h.Engine; e != "" && e != EngineChromium && e != EngineLibreOffice && e != EngineAuto {
		errs = append(errs, fmt.Errorf("--html-engine %q: want chromium, libreoffice or auto", e))
	}
	if shared {
		errs = append(errs, ErrURLsShared)
	}
	if h.Page == nil {
		return errs
	}
	p := h.Page
	if p.Scale < 0.1 || p.Scale > 2 {
		errs = append(errs, fmt.Errorf("--scale %g: want 0.1 to 2", p.Scale))
	}
	if p.PaperWidth <= 0 || p.PaperHeight <= 0 {
		errs = append(errs, fmt.Errorf("--paper: %gin x %gin, want a positive width and height", p.PaperWidth, p.PaperHeight))
	}
	if min(p.MarginTop, p.MarginBottom, p.MarginLeft, p.MarginRight) < 0 {
		errs = append(errs, errors.New("--margin: must not be negative"))
	}
	if p.MarginTop+p.MarginBottom >= p.PaperHeight || p.MarginLeft+p.MarginRight >= p.PaperWidth {
		errs = append(errs, errors.New("--margin: the margins leave no room on the paper"))
	}
	if h.Load.WaitDelay < 0 {
		errs = append(errs, errors.New("--wait-delay: must not be negative"))
	}
	return errs
}
