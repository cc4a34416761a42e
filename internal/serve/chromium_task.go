package serve

import (
	"net/http"
	"slices"
	"strings"

	"calq/convert/chromium"
	"calq/internal/serve/form"
)

// The /forms/chromium routes, below /forms/.
const (
	routeChromiumHTML         = "chromium/convert/html"
	routeChromiumURL          = "chromium/convert/url"
	routeChromiumMarkdown     = "chromium/convert/markdown"
	routeScreenshotHTML       = "chromium/screenshot/html"
	routeScreenshotURL        = "chromium/screenshot/url"
	routeScreenshotMarkdown   = "chromium/screenshot/markdown"
	chromiumIndex             = "index.html"
	siteDirName               = "site"
	contentTypeImagePrefix    = "image/"
	chromiumNotInstalledError = "Service Unavailable: Chromium is not installed on this server (calq serve found no chromium executable); the /forms/chromium routes need it"
)

// chromiumRoutes are the routes whose job a browser of Options.Chromium
// does.
var chromiumRoutes = []string{routeChromiumHTML, routeChromiumURL, routeChromiumMarkdown,
	routeScreenshotHTML, routeScreenshotURL, routeScreenshotMarkdown}

func isChromium(route string) bool { return slices.Contains(chromiumRoutes, route) }

// isScreenshot says whether a Chromium route captures an image rather
// than printing a PDF.
func isScreenshot(route string) bool { return strings.HasPrefix(route, "chromium/screenshot/") }

// sitePage says whether a Chromium route's page is the uploaded
// index.html (with the other uploads as its assets), rather than a URL.
func sitePage(route string) bool { return isChromium(route) && !strings.HasSuffix(route, "/url") }

func isMarkdown(route string) bool { return strings.HasSuffix(route, "/markdown") }

// ChromiumTask is the page of a /forms/chromium job and how a browser
// loads it, then prints it (PDF) or captures it (Screenshot): one of the
// two is set. The page is URL for the url routes, else the uploaded
// index.html. Its cookies and extra headers are secrets (secrets.go):
// they are not recorded in the journal.
type ChromiumTask struct {
	URL string `json:"url,omitempty"`
	// Index is the client's name of the page among the uploads
	// ("index.html", its extension in any case).
	Index      string               `json:"index,omitempty"`
	Load       chromium.Load        `json:"load"`
	PDF        *chromium.PDF        `json:"pdf,omitempty"`
	Screenshot *chromium.Screenshot `json:"screenshot,omitempty"`
}

// chromiumTask reads the fields of a Chromium route into t, over the
// profile's post-processing.
func chromiumTask(route string, f *form.Form, t *Task) (form.Post, error) {
	o, err := form.Chromium(route, f)
	if err != nil {
		return form.Post{}, err
	}
	c := &ChromiumTask{URL: o.URL, Load: o.Load}
	for _, in := range f.Inputs() {
		if o.Index != "" && in.Path == o.Index {
			c.Index = in.Name
		}
	}
	if isScreenshot(route) {
		shot := o.Shot
		c.Screenshot = &shot
		t.Chromium = c
		return form.Post{}, nil // an image: no PDF steps
	}
	p := o.PDF
	c.PDF = &p
	t.Chromium = c
	t.PDFA, t.Export.PDFUA = o.PDFA, o.PDFUA
	if f.Has("mailTo") {
		t.MailTo = o.MailTo
	}
	return o.Post, nil
}

// checkSite refuses, before the job is queued, uploads that cannot make
// one directory of the page and its assets under the names the client
// gave them: the page is required (form.Chromium says it first), and two
// files may not share a name. The names themselves are safe as
// form.BaseName cleaned them (no separator, no "." or "..").
func checkSite(route string, inputs []form.File, t Task) error {
	if !sitePage(route) {
		return nil
	}
	seen := map[string]bool{}
	for _, in := range inputs {
		if seen[in.Name] {
			return badRequest("Invalid form data: two files are named '%s'; the page's files must have distinct names", in.Name)
		}
		seen[in.Name] = true
	}
	if t.Chromium == nil || !seen[t.Chromium.Index] {
		return badRequest("Invalid form data: form file '%s' is required", chromiumIndex)
	}
	return nil
}

// chromiumReady refuses a Chromium job on a server without Chromium.
func (s *Server) chromiumReady() error {
	if s.opts.Chromium == nil {
		return &jobError{status: http.StatusServiceUnavailable, msg: chromiumNotInstalledError}
	}
	return nil
}

// screenshotType is the extension and Content-Type of a screenshot in
// format ("png", "jpeg" or "webp"), as Gotenberg names them.
func screenshotType(format string) (ext, contentType string) {
	if format == "" {
		format = "png"
	}
	return "." + format, contentTypeImagePrefix + format
}

// chromiumName is the stem of a Chromium job's result: the requested
// output name, else the job's id.
func chromiumName(id, filename string) string {
	if filename != "" {
		return filename
	}
	return id
}
