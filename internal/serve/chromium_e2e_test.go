package serve

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"calq/convert/chromium"
	"calq/convert/pdf"
	"calq/internal/pdftest"
	"calq/internal/serve/jobs"
	"calq/internal/tooltest"
)

// The package's tests share one warm Chromium pool, as a server's
// requests do. Its pages may reach loopback: the tests' own servers.
var (
	chromiumOnce sync.Once
	chromiumPool *chromium.Pool
	chromiumErr  error
)

func realChromium(t *testing.T) *chromium.Pool {
	t.Helper()
	if _, _, err := chromium.Find(""); err != nil {
		tooltest.Unavailable(t, "%v", err)
	}
	chromiumOnce.Do(func() {
		chromiumPool, chromiumErr = chromium.New(chromium.Config{Browsers: 1, Tabs: 4,
			Policy: chromium.Policy{AllowNetworks: []string{"127.0.0.0/8"}}})
	})
	if chromiumErr != nil {
		t.Fatal(chromiumErr)
	}
	return chromiumPool
}

// chromiumServer is a test server with the shared Chromium pool.
func chromiumServer(t *testing.T, mod func(*Options)) *testServer {
	t.Helper()
	p := realChromium(t)
	return newTestServer(t, func(o *Options) {
		o.Chromium = p
		if mod != nil {
			mod(o)
		}
	})
}

const onePage = `<!doctype html><html><head><title>One</title><link rel="stylesheet" href="style.css"></head>
<body><h1>Hello page</h1><img src="dot.svg"></body></html>`

var siteFiles = []upload{{"files", "index.html", []byte(onePage)}, {"files", "style.css", []byte("h1 { color: red }")},
	{"files", "dot.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`)}}

var markdownFiles = []upload{{"files", "index.html", []byte(`<!doctype html><html><body>{{ toHTML "page_1.md" }}</body></html>`)},
	{"files", "page_1.md", []byte("# Page 1\n\n| a | b |\n|---|---|\n| c | d |\n")}}

// threePageSite is a page of three printed pages.
var threePageSite = []upload{{"files", "index.html", []byte(`<!doctype html><html><body>
<p style="page-break-after: always">Page 1</p><p style="page-break-after: always">Page 2</p><p>Page 3</p></body></html>`)}}

// TestChromiumRoutesEndToEnd: each route with a real chromium: the
// reply's type and name as Gotenberg gives them, and what the file holds.
func TestChromiumRoutesEndToEnd(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><p>Remote page</p></body></html>"))
	}))
	defer site.Close()
	ts := chromiumServer(t, nil)
	foo := http.Header{"Gotenberg-Output-Filename": {"foo"}}
	tests := []struct {
		name   string
		route  string
		files  []upload
		fields map[string]string
		ctype  string
		file   string   // the reply's file name
		text   []string // in the PDF
		pages  int
	}{
		{name: "html with assets", route: routeChromiumHTML, files: siteFiles, fields: map[string]string{"failOnResourceLoadingFailed": "true"},
			ctype: contentTypePDF, file: "foo.pdf",
			text: []string{"Hellopage"}, pages: 1},
		{name: "markdown", route: routeChromiumMarkdown, files: markdownFiles, ctype: contentTypePDF, file: "foo.pdf",
			text: []string{"Page1", "cd"}, pages: 1},
		{name: "url", route: routeChromiumURL, fields: map[string]string{"url": site.URL}, ctype: contentTypePDF, file: "foo.pdf",
			text: []string{"Remotepage"}, pages: 1},
		{name: "page ranges", route: routeChromiumHTML, files: threePageSite, fields: map[string]string{"nativePageRanges": "2-3"},
			ctype: contentTypePDF, file: "foo.pdf", text: []string{"Page2", "Page3"}, pages: 2},
		{name: "split", route: routeChromiumHTML, files: threePageSite, fields: map[string]string{"splitMode": "intervals", "splitSpan": "2"},
			ctype: contentTypeZip, file: "foo.zip"},
		{name: "watermark and metadata", route: routeChromiumHTML, files: threePageSite,
			fields: map[string]string{"watermarkSource": "text", "watermarkExpression": "DRAFT", "metadata": `{"Author":"Ann"}`},
			ctype:  contentTypePDF, file: "foo.pdf", text: []string{"DRAFT", "Page1"}, pages: 3},
		{name: "screenshot html", route: routeScreenshotHTML, files: siteFiles, ctype: "image/png", file: "foo.png"},
		{name: "screenshot markdown jpeg", route: routeScreenshotMarkdown, files: markdownFiles,
			fields: map[string]string{"format": "jpeg"}, ctype: "image/jpeg", file: "foo.jpeg"},
		{name: "screenshot url webp", route: routeScreenshotURL, fields: map[string]string{"url": site.URL, "format": "webp"},
			ctype: "image/webp", file: "foo.webp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, ts.URL+"/forms/"+tt.route, tt.files, tt.fields, foo)
			b := body(t, resp)
			if resp.StatusCode != 200 {
				t.Fatalf("got %d %.300q, want 200", resp.StatusCode, b)
			}
			if got := resp.Header.Get("Content-Type"); got != tt.ctype {
				t.Errorf("got Content-Type %q, want %q", got, tt.ctype)
			}
			if got, want := resp.Header.Get("Content-Disposition"), `filename="`+tt.file+`"`; !strings.Contains(got, want) {
				t.Errorf("got Content-Disposition %q, want %s", got, want)
			}
			switch {
			case tt.ctype == contentTypeZip:
				names, _ := zipEntries(t, b)
				if got := strings.Join(names, " "); got != "foo_0.pdf foo_1.pdf" {
					t.Errorf("got zip entries %s, want foo_0.pdf foo_1.pdf", got)
				}
			case tt.ctype == contentTypePDF:
				path := pdfFile(t, b)
				if n := pages(t, path); n != tt.pages {
					t.Errorf("got %d pages, want %d", n, tt.pages)
				}
				pdftest.CheckText(t, path, tt.text, nil)
			default:
				if !imageMagic(b, tt.ctype) {
					t.Errorf("got %.16q, want an image %s", b, tt.ctype)
				}
			}
		})
	}
}

// imageMagic says whether b begins as an image of the Content-Type.
func imageMagic(b []byte, ctype string) bool {
	switch ctype {
	case "image/png":
		return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n"))
	case "image/jpeg":
		return bytes.HasPrefix(b, []byte("\xff\xd8\xff"))
	case "image/webp":
		return len(b) > 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
	}
	return false
}

// TestChromiumPDFA: a Chromium PDF made PDF/A by LibreOffice, with its
// metadata written after, as the pdfengines routes do it.
func TestChromiumPDFA(t *testing.T) {
	ts := chromiumServer(t, nil)
	resp := post(t, ts.URL+"/forms/"+routeChromiumHTML, siteFiles, map[string]string{"pdfa": "PDF/A-2b",
		"metadata": `{"Title":"Archived"}`}, nil)
	b := body(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("got %d %.300q, want 200", resp.StatusCode, b)
	}
	path := pdfFile(t, b)
	if c, err := pdf.PDFA(context.Background(), path); err != nil || c.Part != 2 {
		t.Errorf("got PDF/A %+v (%v), want part 2", c, err)
	}
	m, err := pdf.ReadMetadata(context.Background(), path)
	if err != nil || m["Title"] != "Archived" {
		t.Errorf("got metadata %+v (%v), want the title Archived", m, err)
	}
	pdftest.CheckText(t, path, []string{"Hellopage"}, nil)
}

// TestChromiumEncrypt: the page's PDF encrypted with the user's password,
// which the journal does not keep.
func TestChromiumEncrypt(t *testing.T) {
	ts := chromiumServer(t, nil)
	resp := post(t, ts.URL+"/forms/"+routeChromiumHTML, siteFiles, map[string]string{"userPassword": "pw-user"}, nil)
	b := body(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("got %d %.300q, want 200", resp.StatusCode, b)
	}
	if _, err := pdf.Inspect(pdfFile(t, b), ""); err == nil {
		t.Errorf("opened without a password, want it refused")
	}
	db, err := os.ReadFile(ts.DB)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(db, []byte("pw-user")) {
		t.Errorf("the journal holds the password")
	}
}

// TestChromiumConvertPage: a web page and a Markdown file dropped on the
// convert page print with Chromium (the CSS hides what LibreOffice's
// import would show, and the Markdown table becomes a table), beside an
// office document that LibreOffice converts.
func TestChromiumConvertPage(t *testing.T) {
	p := realChromium(t)
	ts := pageServer(t, func(o *Options) { o.Chromium = p })
	alice := browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	files := []upload{
		{"files", "notes.md", []byte("# Notes\n\n| a | b |\n|---|---|\n| c | d |\n")},
		{"files", "page.html", []byte(`<!doctype html><html><head><style>.hidden { display: none }</style></head><body><p>Shown text</p><p class="hidden">Hidden text</p></body></html>`)},
		{"files", "plain.txt", []byte("plain words\n")},
	}
	resp := postPage(t, alice, ts.URL+"/convert", files, nil) // the job's files in name order
	resp.Body.Close()
	job := resp.Header.Get("Location")
	if got := finalProgress(t, alice, ts.URL, job); got.State != jobs.Done {
		t.Fatalf("job: %+v", got)
	}
	for i, tt := range []struct{ want, not []string }{
		{[]string{"Notes", "cd"}, []string{"|a|"}},
		{[]string{"Showntext"}, []string{"Hiddentext"}},
		{[]string{"plainwords"}, nil},
	} {
		resp, err := alice.Get(ts.URL + job + "/file/" + strconv.Itoa(i) + "?download=1")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		path := filepath.Join(t.TempDir(), "out.pdf")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s", files[i].name)
		pdftest.CheckText(t, path, tt.want, tt.not)
	}
}

// TestChromiumHealthSaysNoURL: /health, which anyone may read, does not
// repeat a conversion's error, which names its client's URL.
func TestChromiumHealthSaysNoURL(t *testing.T) {
	ts := chromiumServer(t, nil)
	const url = "http://169.254.169.254/private-token-4711"
	resp := post(t, ts.URL+"/forms/"+routeChromiumURL, nil, map[string]string{"url": url}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("convert %s: %d, want 403", url, resp.StatusCode)
	}
	h, err := http.Get(ts.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Body.Close()
	b, _ := io.ReadAll(h.Body)
	if strings.Contains(string(b), "private-token-4711") {
		t.Errorf("/health repeats the client's URL: %s", b)
	}
}
