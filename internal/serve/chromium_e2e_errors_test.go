package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestChromiumErrorsEndToEnd: what fails while the page loads answers
// Gotenberg's status and sentence, with a real chromium.
func TestChromiumErrorsEndToEnd(t *testing.T) {
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	ts := chromiumServer(t, nil)
	throws := []upload{{"files", "index.html", []byte(`<html><body><p>x</p>
<script>throw new Error("Exception 1");</script><script>throw new Error("Exception 2");</script></body></html>`)}}
	tests := []struct {
		name   string
		route  string
		files  []upload
		fields map[string]string
		status int
		exact  string   // the whole body, or ""
		parts  []string // in the body
	}{
		{name: "markdown files not found", route: routeChromiumMarkdown,
			files: []upload{{"files", "index.html", []byte(`{{ toHTML "page_1.md" }}{{ toHTML "page_2.md" }}{{ toHTML "page_3.md" }}`)},
				{"files", "page_1.md", []byte("# 1")}},
			status: 400, exact: "Markdown file(s) not found: 'page_2.md'\n'page_3.md'"},
		{name: "expression", route: routeChromiumHTML, files: siteFiles, fields: map[string]string{"waitForExpression": "undefined"},
			status: 400, exact: "The expression 'undefined' (waitForExpression) returned an exception or undefined"},
		{name: "page ranges past the end", route: routeChromiumHTML, files: siteFiles, fields: map[string]string{"nativePageRanges": "2-3"},
			status: 400, exact: "The page ranges '2-3' (nativePageRanges) exceeds the page count"},
		{name: "screenshot selector", route: routeScreenshotHTML, files: siteFiles, fields: map[string]string{"selector": "#does-not-exist"},
			status: 400, exact: "The selector '#does-not-exist' (selector) matched no element with a visible box"},
		{name: "console exceptions", route: routeChromiumHTML, files: throws, fields: map[string]string{"failOnConsoleExceptions": "true"},
			status: 409, parts: []string{"Chromium console exceptions", "Error: Exception 1", "Error: Exception 2"}},
		{name: "main page status", route: routeChromiumURL, fields: map[string]string{"url": missing.URL, "failOnHttpStatusCodes": "[499]"},
			status: 409, parts: []string{"Invalid HTTP status code from the main page: ", "404"}},
		{name: "asset not uploaded", route: routeChromiumHTML, files: siteFiles[:1], fields: map[string]string{"failOnResourceLoadingFailed": "true"},
			status: 409, parts: []string{"Chromium failed to load resources: ", "net::ERR_FILE_NOT_FOUND"}},
		{name: "no index", route: routeChromiumHTML, files: []upload{{"files", "page.html", []byte("x")}},
			status: 400, exact: "Invalid form data: form file 'index.html' is required"},
		{name: "two files of one name", route: routeChromiumHTML,
			files:  []upload{siteFiles[0], {"files", "a.css", []byte("1")}, {"other", "a.css", []byte("2")}},
			status: 400, exact: "Invalid form data: two files are named 'a.css'; the page's files must have distinct names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, ts.URL+"/forms/"+tt.route, tt.files, tt.fields, nil)
			b := string(body(t, resp))
			if resp.StatusCode != tt.status {
				t.Fatalf("got %d %.300q, want %d", resp.StatusCode, b, tt.status)
			}
			if ct := resp.Header.Get("Content-Type"); ct != contentTypeText {
				t.Errorf("got Content-Type %q, want %q", ct, contentTypeText)
			}
			if tt.exact != "" && b != tt.exact {
				t.Errorf("got %q, want %q", b, tt.exact)
			}
			for _, p := range tt.parts {
				if !strings.Contains(b, p) {
					t.Errorf("got %q, want %q in it", b, p)
				}
			}
		})
	}
}

// TestChromiumPageNeverLoads: a page whose resource never answers is cut
// at the file timeout with Gotenberg's 503, and the job says so.
func TestChromiumPageNeverLoads(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	ts := chromiumServer(t, func(o *Options) { o.FileTimeout = 3 * time.Second })
	page := []upload{{"files", "index.html", []byte(`<html><body><p>waiting</p><img src="` + hang.URL + `/never.png"></body></html>`)}}
	resp := post(t, ts.URL+"/forms/"+routeChromiumHTML, page, nil, nil)
	b := string(body(t, resp))
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(b, "Service Unavailable: ") {
		t.Fatalf("got %d %q, want 503 Service Unavailable", resp.StatusCode, b)
	}
	js, err := ts.Jobs.List(t.Context(), "", 10)
	if err != nil || len(js) != 1 || js[0].Status != http.StatusServiceUnavailable {
		t.Fatalf("got jobs %+v (%v), want one ended 503", js, err)
	}
}
