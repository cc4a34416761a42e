package form

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"calq/convert/chromium"
)

// ChromiumOptions are the fields of the /forms/chromium routes: how the
// page loads, how it is printed (convert routes) or captured (screenshot
// routes), and, for convert routes, the PDF fields the LibreOffice route
// also takes.
type ChromiumOptions struct {
	// URL is the url field of the url routes: an http:// or https:// URL.
	URL  string
	Load chromium.Load
	PDF  chromium.PDF        // convert routes
	Shot chromium.Screenshot // screenshot routes
	// PDFA and PDFUA, Merge (never: one page), Post and MailTo are as in
	// LibreOfficeOptions.
	PDFA   int
	PDFUA  bool
	MailTo []string
	Post
	// Index is where the uploaded index.html is (html and markdown
	// routes); Markdown are the uploaded .md files (markdown routes), in
	// Gotenberg's order of inputs.
	Index    string
	Markdown []File
}

// ChromiumRoutes are the /forms/chromium/* routes Chromium reads.
var ChromiumRoutes = []string{"convert/html", "convert/url", "convert/markdown",
	"screenshot/html", "screenshot/url", "screenshot/markdown"}

// Chromium reads the fields of route ("chromium/convert/html", ...,
// with or without the /forms/ prefix). Unknown fields are ignored; a bad
// value is a 400 *Error in Gotenberg's words, naming the field, the
// lines in Gotenberg's order: the page's fields, the PDF fields the
// routes share, then the files (index.html, the .md files) or the url.
// What Gotenberg finds only once Chromium has run but a form shows
// (a file:// url, omitBackground without printBackground, settings no
// page can be printed with, page ranges that do not parse, an unknown
// PDF format) is said after them, in Gotenberg's sentence for it. A
// route calq does not offer is a 404 *Error.
func Chromium(route string, f *Form) (ChromiumOptions, error) {
	route = strings.Trim(strings.TrimPrefix(strings.TrimPrefix(route, "/forms/"), "chromium/"), "/")
	if !slices.Contains(ChromiumRoutes, route) {
		return ChromiumOptions{}, &Error{Status: http.StatusNotFound,
			Msg: "calq serve does not offer the route /forms/chromium/" + strings.Trim(quote(route), "'") + "."}
	}
	kind, source, _ := strings.Cut(route, "/")
	var o ChromiumOptions
	o.Load = f.load()
	if kind == "convert" {
		o.PDF = f.printing()
	} else {
		o.Shot = f.screenshot()
	}
	if source == "url" {
		f.checkURL(f.Value("url"))
	}
	if kind == "convert" {
		f.checkPrinting(o.Load, o.PDF)
		split := f.split(false)
		o.PDFA, o.PDFUA = f.pdfFormats(false)
		o.Post = f.post(o.PDFA)
		o.Post.Split = split
	}
	switch source {
	case "url":
		f.Require("url")
		o.URL = f.Value("url")
	case "html":
		o.Index = f.index()
	case "markdown":
		o.Index = f.index()
		o.Markdown = f.markdown()
	}
	if kind == "convert" {
		o.Post.Flatten = f.Bool("flatten") // calq's: Gotenberg's Chromium routes ignore it
	}
	o.MailTo = Recipients(f.Value("mailTo"))
	return o, f.Err()
}

// index is where the uploaded index.html is; its extension's case does
// not matter, as in Gotenberg.
func (f *Form) index() string {
	if file, ok := f.upload("index.html"); ok {
		return file.Path
	}
	f.fail(badRequest("form file 'index.html' is required"))
	return ""
}

// upload is the input the client named name, the extension's case aside.
func (f *Form) upload(name string) (File, bool) {
	for _, file := range f.Inputs() {
		ext := filepath.Ext(file.Name)
		if file.Name == name || strings.TrimSuffix(file.Name, ext)+strings.ToLower(ext) == name {
			return file, true
		}
	}
	return File{}, false
}

// markdown are the uploaded .md files, at least one.
func (f *Form) markdown() []File {
	var md []File
	for _, file := range f.Inputs() {
		if strings.ToLower(filepath.Ext(file.Name)) == ".md" {
			md = append(md, file)
		}
	}
	if len(md) == 0 {
		f.fail(badRequest("no form file found for extensions: [.md]"))
	}
	return md
}
