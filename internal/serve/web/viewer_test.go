package web_test

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"calq/internal/browsertest"
	"calq/internal/serve/web"
)

// csp is as strict as calq serve's pages are meant to be: viewer.js must
// work under it.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"font-src 'self' data:; object-src 'none'; base-uri 'none'"

const viewerPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>viewer</title>
<link rel="stylesheet" href="/static/viewer.css">
<script type="module" src="/static/viewer.js"></script>
</head><body><p id="viewer-error" class="error" role="alert" hidden></p>
<div id="viewer" data-src="%s"%s></div></body></html>`

// server serves web.Static at /static/, the repository's test PDFs at
// /pdf/ and a viewer page at /view?src=URL (&max=N pages), with a hidden
// #viewer-error as calq serve's view page has.
func server(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(web.Static)))
	mux.Handle("GET /pdf/", http.StripPrefix("/pdf/", http.FileServer(http.Dir("../../../testdata/convert"))))
	mux.HandleFunc("GET /not-a-pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "this is plain text, not a PDF\n")
	})
	mux.HandleFunc("GET /truncated.pdf", func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile("../../../testdata/convert/pages_3.pdf")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(b[:200])
	})
	mux.HandleFunc("GET /empty.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
	})
	mux.HandleFunc("GET /view", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// A test page: src and max are the test's own constants.
		max := ""
		if m := r.URL.Query().Get("max"); m != "" {
			max = fmt.Sprintf(` data-max-pages="%s"`, m)
		}
		fmt.Fprintf(w, viewerPage, r.URL.Query().Get("src"), max)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func TestViewer(t *testing.T) {
	b := browsertest.New(t)
	ts := server(t)

	t.Run("renders every page with its text", func(t *testing.T) {
		ctx := b.Tab(t)
		console := browsertest.Console(t, ctx)
		if _, err := browsertest.Navigate(ctx, ts.URL+"/view?src=/pdf/pages_3.pdf"); err != nil {
			t.Fatal(err)
		}
		if n, err := browsertest.WaitAttribute(ctx, "#viewer", "data-rendered"); err != nil || n != "3" {
			t.Fatalf("data-rendered = %q, %v; want 3", n, err)
		}
		if n, _, err := browsertest.Attribute(ctx, "#viewer", "data-pages"); err != nil || n != "3" {
			t.Errorf("data-pages = %q, %v; want 3", n, err)
		}
		order, err := browsertest.Eval[[]string](ctx, `[...document.querySelectorAll("#viewer > .page")].map(p => p.dataset.page)`)
		if err != nil || !slices.Equal(order, []string{"1", "2", "3"}) {
			t.Errorf("pages in the document %q, %v; want 1, 2, 3", order, err)
		}
		for n := 1; n <= 3; n++ {
			sel := fmt.Sprintf(`.page[data-page="%d"] .textLayer`, n)
			text, err := browsertest.Text(ctx, sel)
			if want := fmt.Sprintf("Page %d", n); err != nil || !strings.Contains(text, want) {
				t.Errorf("text layer of page %d = %q, %v; want it to hold %q", n, text, err, want)
			}
		}
		// The browser's own find (Ctrl+F) sees the text layer.
		if found, err := browsertest.Eval[bool](ctx, `window.find("Page 3")`); err != nil || !found {
			t.Errorf(`window.find("Page 3") = %v, %v; want true`, found, err)
		}
		canvas, err := browsertest.ElementPNG(ctx, `.page[data-page="1"] canvas`)
		if err != nil {
			t.Fatal(err)
		}
		ink, err := browsertest.MeasureInk(canvas)
		if err != nil {
			t.Fatal(err)
		}
		// pages_3.pdf's pages are 446.25×631.5 pt: the 1280-pixel
		// viewport has room for more than the 150 % cap.
		if ink.Size.X != 669 || ink.Drawn == 0 {
			t.Errorf("page 1's canvas: %+v; want 669 pixels wide (150 %%), with ink", ink)
		}
		if err := browsertest.Screenshot(ctx, filepath.Join(t.TempDir(), "viewer.png")); err != nil {
			t.Fatal(err)
		}
		for _, m := range console.Messages() {
			if strings.Contains(m, "Content Security Policy") || strings.HasPrefix(m, "exception") {
				t.Errorf("console: %s", m)
			}
		}
	})

	t.Run("fits a narrow screen at its pixel ratio", func(t *testing.T) {
		ctx := b.Tab(t)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 800, chromedp.EmulateScale(2))); err != nil {
			t.Fatal(err)
		}
		if _, err := browsertest.Navigate(ctx, ts.URL+"/view?src=/pdf/testPDF.pdf"); err != nil {
			t.Fatal(err)
		}
		if n, err := browsertest.WaitAttribute(ctx, "#viewer", "data-rendered"); err != nil || n != "1" {
			t.Fatalf("data-rendered = %q, %v; want 1", n, err)
		}
		// The body's default margins (8 px) leave 384 CSS pixels.
		size, err := browsertest.Eval[[]float64](ctx,
			`(c => [c.getBoundingClientRect().width, c.width])(document.querySelector(".page canvas"))`)
		if err != nil || !slices.Equal(size, []float64{384, 768}) {
			t.Errorf("canvas is [CSS width, pixels] %v, %v; want [384 768]", size, err)
		}
	})

	errorCases := []struct {
		name, src, kind, says string
	}{
		{"encrypted", "/pdf/testPassword4Spaces.pdf", "encrypted", "This PDF is encrypted: it needs a password"},
		{"not a PDF", "/not-a-pdf", "invalid", "This file is not a valid PDF"},
		{"broken", "/truncated.pdf", "invalid", "This file is not a valid PDF"},
		{"empty", "/empty.pdf", "empty", "This PDF is empty"},
		{"missing", "/pdf/no-such.pdf", "http", "The PDF is no longer on the server"},
	}
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			ctx := b.Tab(t)
			if _, err := browsertest.Navigate(ctx, ts.URL+"/view?src="+tt.src); err != nil {
				t.Fatal(err)
			}
			if kind, err := browsertest.WaitAttribute(ctx, "#viewer", "data-error"); err != nil || kind != tt.kind {
				t.Fatalf("data-error = %q, %v; want %q", kind, err, tt.kind)
			}
			if msg, err := browsertest.Text(ctx, "#viewer-error"); err != nil || !strings.Contains(msg, tt.says) {
				t.Errorf("#viewer-error says %q, %v; want it to hold %q", msg, err, tt.says)
			}
			// innerText reads a hidden element too: a person must see it.
			if shown, err := browsertest.Eval[bool](ctx, `document.querySelector("#viewer-error").checkVisibility()`); err != nil || !shown {
				t.Errorf("#viewer-error is not visible (%v)", err)
			}
			if _, ok, _ := browsertest.Attribute(ctx, "#viewer", "data-rendered"); ok {
				t.Errorf("#viewer has data-rendered after an error")
			}
		})
	}
}

// TestViewerTooManyPages: a PDF over data-max-pages shows its first
// pages and says, visibly, that the rest is in the download.
func TestViewerTooManyPages(t *testing.T) {
	ctx := browsertest.New(t).Tab(t)
	if _, err := browsertest.Navigate(ctx, server(t).URL+"/view?src=/pdf/pages_3.pdf&max=2"); err != nil {
		t.Fatal(err)
	}
	if n, err := browsertest.WaitAttribute(ctx, "#viewer", "data-rendered"); err != nil || n != "2" {
		t.Fatalf("data-rendered = %q, %v; want 2", n, err)
	}
	if kind, _, _ := browsertest.Attribute(ctx, "#viewer", "data-error"); kind != "too-large" {
		t.Errorf("data-error = %q, want too-large", kind)
	}
	msg, err := browsertest.Text(ctx, "#viewer-error")
	if want := "This PDF has 3 pages: only the first 2 are shown here. Download it to read them all."; err != nil || msg != want {
		t.Errorf("#viewer-error says %q, %v; want %q", msg, err, want)
	}
	if shown, err := browsertest.Eval[bool](ctx, `document.querySelector("#viewer-error").checkVisibility()`); err != nil || !shown {
		t.Errorf("#viewer-error is not visible (%v)", err)
	}
}

func TestStaticFiles(t *testing.T) {
	for _, name := range []string{"viewer.js", "viewer.css", "pdfjs/pdf.min.mjs", "pdfjs/pdf.worker.min.mjs", "pdfjs/LICENSE", "pdfjs/README.md"} {
		if data, err := fs.ReadFile(web.Static, name); err != nil || len(data) == 0 {
			t.Errorf("web.Static has no %s: %v", name, err)
		}
	}
}

func ExampleStatic() {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(web.Static)))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/static/viewer.js")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))
	// Output: 200 OK text/javascript; charset=utf-8
}
