package form

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/convert/chromium"
)

// page is an uploaded index.html.
var page = File{Name: "index.html", Path: "/d/0001.html", Field: "files"}

// withFiles is a form of the fields kv and the files.
func withFiles(files []File, kv ...string) *Form {
	f := formOf(kv...)
	f.Files = files
	return f
}

// defaultLoad is Gotenberg's default page load.
func defaultLoad() chromium.Load {
	return chromium.Load{SkipNetworkIdleEvent: true, SkipNetworkAlmostIdleEvent: true, FailOnHTTPStatusCodes: []int64{499, 599}}
}

// The reasons Go gives for "foo", as Gotenberg's replies repeat them.
const (
	boolFoo  = `strconv.ParseBool: parsing "foo": invalid syntax`
	floatFoo = `strconv.ParseFloat: parsing "foo": invalid syntax`
	jsonFoo  = "invalid character 'o' in literal false (expecting 'a')"
)

// badLine is the line of a refusal of field's value "foo" for reason.
func badLine(field, reason string) string {
	return "form field '" + field + "' is invalid (got 'foo', resulting to " + reason + ")"
}

// TestChromiumAllBad: every page field sent as "foo" is refused on one
// line each, in the order Gotenberg reads them, the missing files or url
// last, whatever order they were sent in.
func TestChromiumAllBad(t *testing.T) {
	loadLines := []string{
		badLine("skipNetworkIdleEvent", boolFoo), badLine("skipNetworkAlmostIdleEvent", boolFoo),
		badLine("failOnHttpStatusCodes", "unmarshal failOnHttpStatusCodes: "+jsonFoo),
		badLine("failOnResourceHttpStatusCodes", "unmarshal failOnResourceHttpStatusCodes: "+jsonFoo),
		badLine("failOnResourceLoadingFailed", boolFoo), badLine("failOnConsoleExceptions", boolFoo),
		badLine("waitDelay", `time: invalid duration "foo"`),
		badLine("emulatedMediaType", "wrong value, expected either 'screen', 'print' or empty"),
		badLine("omitBackground", boolFoo),
	}
	pdfLines := []string{badLine("landscape", boolFoo), badLine("printBackground", boolFoo), badLine("scale", floatFoo),
		badLine("singlePage", boolFoo)}
	for _, n := range []string{"paperWidth", "paperHeight", "marginTop", "marginBottom", "marginLeft", "marginRight"} {
		pdfLines = append(pdfLines, badLine(n, floatFoo))
	}
	pdfLines = append(pdfLines, badLine("preferCssPageSize", boolFoo), badLine("generateDocumentOutline", boolFoo),
		badLine("generateTaggedPdf", boolFoo))
	shotLines := []string{badLine("width", `strconv.Atoi: parsing "foo": invalid syntax`), badLine("height", `strconv.Atoi: parsing "foo": invalid syntax`),
		badLine("clip", boolFoo), "form field 'format' is invalid (got 'bar', resulting to wrong value, expected either 'png', 'jpeg' or 'webp')",
		"form field 'quality' is invalid (got '-1', resulting to value is negative)", badLine("optimizeForSpeed", boolFoo)}
	// Sent in reverse order of reading.
	var kv []string
	for _, l := range append(append(slices.Clone(loadLines), pdfLines...), shotLines...) {
		name := strings.Split(l, "'")[1]
		v := "foo"
		switch name {
		case "format":
			v = "bar"
		case "quality":
			v = "-1"
		}
		kv = append([]string{name, v}, kv...)
	}
	for _, tc := range []struct {
		route string
		lines []string
	}{
		{"chromium/convert/html", append(append(slices.Clone(loadLines), pdfLines...), "form file 'index.html' is required")},
		{"/forms/chromium/convert/markdown", append(append(slices.Clone(loadLines), pdfLines...),
			"form file 'index.html' is required", "no form file found for extensions: [.md]")},
		{"chromium/convert/url", append(append(slices.Clone(loadLines), pdfLines...), "form field 'url' is required")},
		{"chromium/screenshot/html", append(slices.Clone(loadLines), append(shotLines, "form file 'index.html' is required")...)},
		{"chromium/screenshot/url", append(slices.Clone(loadLines), append(shotLines, "form field 'url' is required")...)},
	} {
		t.Run(tc.route, func(t *testing.T) {
			_, err := Chromium(tc.route, formOf(kv...))
			want := "Invalid form data: " + strings.Join(tc.lines, "\n")
			if got := errMsg(err); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if e, ok := err.(*Error); !ok || e.Status != 400 {
				t.Errorf("got %#v, want a 400 *Error", err)
			}
		})
	}
}

// TestChromium: each kind of field, its default, good values and each
// refusal's sentence.
func TestChromium(t *testing.T) {
	dir := t.TempDir()
	header := File{Name: "header.html", Path: filepath.Join(dir, "h.html"), Field: "files"}
	if err := os.WriteFile(header.Path, []byte(`<span class="pageNumber"></span>`), 0o600); err != nil {
		t.Fatal(err)
	}
	big := File{Name: "footer.HTML", Path: filepath.Join(dir, "f.html"), Field: "files"}
	if err := os.WriteFile(big.Path, make([]byte, maxTemplate+1), 0o600); err != nil {
		t.Fatal(err)
	}
	html := func(kv ...string) *Form { return withFiles([]File{page}, kv...) }
	load := func(change func(l *chromium.Load)) ChromiumOptions {
		o := ChromiumOptions{Load: defaultLoad(), PDF: chromium.DefaultPDF(), Index: page.Path}
		change(&o.Load)
		return o
	}
	printed := func(change func(p *chromium.PDF)) ChromiumOptions {
		o := ChromiumOptions{Load: defaultLoad(), PDF: chromium.DefaultPDF(), Index: page.Path}
		change(&o.PDF)
		return o
	}
	const invalid = "Invalid form data: "
	for _, tc := range []struct {
		name, route string
		form        *Form
		want        ChromiumOptions
		wantErr     string
		wantStatus  int
	}{
		{name: "defaults", route: "chromium/convert/html", form: html(), want: load(func(*chromium.Load) {})},
		{name: "index.html with its extension in capitals", route: "chromium/convert/html",
			form: withFiles([]File{{Name: "index.HTML", Path: "/d/0001.html"}}), want: load(func(*chromium.Load) {})},
		{name: "Index.html is not index.html", route: "chromium/convert/html",
			form: withFiles([]File{{Name: "Index.html", Path: "/d/0001.html"}}), wantErr: invalid + "form file 'index.html' is required"},
		{name: "index.html uploaded as a watermark", route: "chromium/convert/html",
			form: withFiles([]File{{Name: "index.html", Path: "/d/0001.html", Field: "watermark"}}), wantErr: invalid + "form file 'index.html' is required"},
		{name: "unknown route", route: "chromium/convert/docx", form: html(), wantStatus: 404,
			wantErr: "calq serve does not offer the route /forms/chromium/convert/docx."},

		// How the page loads.
		{name: "network events waited for", route: "chromium/convert/html", form: html("skipNetworkIdleEvent", "false", "skipNetworkAlmostIdleEvent", "0"),
			want: load(func(l *chromium.Load) { l.SkipNetworkIdleEvent, l.SkipNetworkAlmostIdleEvent = false, false })},
		{name: "status codes", route: "chromium/convert/html", form: html("failOnHttpStatusCodes", "[404, 599]", "failOnResourceHttpStatusCodes", "[499]",
			"ignoreResourceHttpStatusDomains", `["example.com"]`, "failOnResourceLoadingFailed", "true", "failOnConsoleExceptions", "true"),
			want: load(func(l *chromium.Load) {
				l.FailOnHTTPStatusCodes, l.FailOnResourceHTTPStatusCodes = []int64{404, 599}, []int64{499}
				l.IgnoreResourceHTTPStatusDomains, l.FailOnResourceLoadingFailed, l.FailOnConsoleExceptions = []string{"example.com"}, true, true
			})},
		{name: "status codes null: none", route: "chromium/convert/html", form: html("failOnHttpStatusCodes", "null"),
			want: load(func(l *chromium.Load) { l.FailOnHTTPStatusCodes = nil })},
		{name: "status codes not numbers", route: "chromium/convert/html", form: html("failOnHttpStatusCodes", `["404"]`),
			wantErr: invalid + `form field 'failOnHttpStatusCodes' is invalid (got '["404"]', want a JSON list of HTTP status codes from 100 to 599)`},
		{name: "status code out of range", route: "chromium/convert/html", form: html("failOnResourceHttpStatusCodes", `[42]`),
			wantErr: invalid + `form field 'failOnResourceHttpStatusCodes' is invalid (got '[42]', want a JSON list of HTTP status codes from 100 to 599, at most 100)`},
		{name: "domains not a list", route: "chromium/convert/html", form: html("ignoreResourceHttpStatusDomains", `"a.com"`),
			wantErr: invalid + `form field 'ignoreResourceHttpStatusDomains' is invalid (got '"a.com"', want a JSON list of host names)`},
		{name: "waits", route: "chromium/convert/html", form: html("waitDelay", "1.5s", "waitWindowStatus", "ready",
			"waitForExpression", "window.done === true", "waitForSelector", "#done", "userAgent", "calq-test/1"),
			want: load(func(l *chromium.Load) {
				l.WaitDelay, l.WaitWindowStatus, l.WaitForExpression, l.WaitForSelector, l.UserAgent = 1500*time.Millisecond, "ready", "window.done === true", "#done", "calq-test/1"
			})},
		{name: "wait delay negative", route: "chromium/convert/html", form: html("waitDelay", "-1s"),
			wantErr: invalid + "form field 'waitDelay' is invalid (got '-1s', want a duration from 0 to 10m0s)"},
		{name: "wait delay over calq's bound", route: "chromium/convert/html", form: html("waitDelay", "11m"),
			wantErr: invalid + "form field 'waitDelay' is invalid (got '11m', want a duration from 0 to 10m0s)"},
		{name: "user agent on two lines", route: "chromium/convert/html", form: html("userAgent", "a\r\nX-Evil: 1"),
			wantErr: invalid + "form field 'userAgent' is invalid (got 'aX-Evil: 1', want text without control characters)"},
		{name: "cookies, sameSite in any case", route: "chromium/convert/html",
			form: html("cookies", `[{"name":"a","value":"1","domain":"example.com","sameSite":"lax","secure":true},{"name":"b","value":"2","domain":"x.org","path":"/p","httpOnly":true,"sameSite":"STRICT"}]`),
			want: load(func(l *chromium.Load) {
				l.Cookies = []chromium.Cookie{{Name: "a", Value: "1", Domain: "example.com", SameSite: "Lax", Secure: true},
					{Name: "b", Value: "2", Domain: "x.org", Path: "/p", HTTPOnly: true, SameSite: "Strict"}}
			})},
		{name: "cookies foo", route: "chromium/convert/html", form: html("cookies", "foo"),
			wantErr: invalid + badLine("cookies", "unmarshal cookies: "+jsonFoo)},
		{name: "cookie without domain", route: "chromium/convert/html", form: html("cookies", `[{"name":"yummy_cookie","value":"choco"}]`),
			wantErr: invalid + `form field 'cookies' is invalid (got '[{"name":"yummy_cookie","value":"choco"}]', resulting to cookie 0 must have its name, value and domain set)`},
		{name: "two cookies wrong", route: "chromium/convert/html", form: html("cookies", `[{},{"name":"b","value":"1","domain":"c","sameSite":"x"}]`),
			wantErr: invalid + `form field 'cookies' is invalid (got '[{},{"name":"b","value":"1","domain":"c","sameSite":"x"}]', resulting to cookie 0 must have its name, value and domain set` + "\ncookie 1 has sameSite 'x', want 'Strict', 'Lax' or 'None')"},
		{name: "cookies not a list", route: "chromium/convert/html", form: html("cookies", `{"name":"a"}`),
			wantErr: invalid + `form field 'cookies' is invalid (got '{"name":"a"}', want a JSON list of {"name", "value", "domain", ...})`},
		{name: "too many cookies", route: "chromium/convert/html", form: html("cookies", "["+strings.Repeat(`{},`, maxCookies)+"{}]"),
			wantErr: "resulting to too many cookies, got 65, expected at most 64)"},
		{name: "extra headers, scoped", route: "chromium/convert/html",
			form: html("extraHttpHeaders", `{"X-Scoped":"a;b; scope = https://example\\.com/.*","Authorization":"Bearer t"}`),
			want: load(func(l *chromium.Load) {
				l.ExtraHTTPHeaders = []chromium.Header{{Name: "Authorization", Value: "Bearer t"},
					{Name: "X-Scoped", Value: "a; b", Scope: `https://example\.com/.*`}}
			})},
		{name: "extra headers foo", route: "chromium/convert/html", form: html("extraHttpHeaders", "foo"),
			wantErr: invalid + badLine("extraHttpHeaders", "unmarshal extraHttpHeaders: "+jsonFoo)},
		{name: "extra header empty scope", route: "chromium/convert/html", form: html("extraHttpHeaders", `{"foo":"bar;scope;;"}`),
			wantErr: invalid + `form field 'extraHttpHeaders' is invalid (got '{"foo":"bar;scope;;"}', resulting to invalid scope '' for header 'foo')`},
		{name: "extra header scope not a regexp", route: "chromium/convert/html", form: html("extraHttpHeaders", `{"foo":"bar;scope=*."}`),
			wantErr: invalid + "form field 'extraHttpHeaders' is invalid (got '{\"foo\":\"bar;scope=*.\"}', resulting to invalid scope regex pattern for header 'foo': error parsing regexp: missing argument to repetition operator in `*.`)"},
		{name: "extra header scope too long", route: "chromium/convert/html", form: html("extraHttpHeaders", `{"foo":"bar;scope=`+strings.Repeat("a", maxScope+1)+`"}`),
			wantErr: "resulting to scope regex pattern for header 'foo' is too long, got 1025 characters, expected at most 1024)"},
		{name: "extra header name not a token", route: "chromium/convert/html", form: html("extraHttpHeaders", `{"a b":"c"}`),
			wantErr: invalid + `form field 'extraHttpHeaders' is invalid (got '{"a b":"c"}', resulting to invalid header 'a b': want a name of letters, digits and !#$%&'*+-.^_` + "`|~ and a value without control characters)"},
		{name: "too many extra headers", route: "chromium/convert/html", form: html("extraHttpHeaders", manyHeaders(maxHeaders+1)),
			wantErr: "resulting to too many headers, got 65, expected at most 64)"},
		{name: "media", route: "chromium/convert/html", form: html("emulatedMediaType", "screen",
			"emulatedMediaFeatures", `{"prefers-reduced-motion":"reduce","prefers-color-scheme":"dark"}`, "omitBackground", "true", "printBackground", "true"),
			want: ChromiumOptions{Load: load(func(l *chromium.Load) {
				l.EmulatedMediaType, l.OmitBackground = "screen", true
				l.EmulatedMediaFeatures = []chromium.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}, {Name: "prefers-reduced-motion", Value: "reduce"}}
			}).Load, PDF: printed(func(p *chromium.PDF) { p.PrintBackground = true }).PDF, Index: page.Path}},
		{name: "media type in capitals", route: "chromium/convert/html", form: html("emulatedMediaType", "Print"),
			wantErr: invalid + "form field 'emulatedMediaType' is invalid (got 'Print', resulting to wrong value, expected either 'screen', 'print' or empty)"},
		{name: "media features foo", route: "chromium/convert/html", form: html("emulatedMediaFeatures", "foo"),
			wantErr: invalid + badLine("emulatedMediaFeatures", "unmarshal emulatedMediaFeatures: "+jsonFoo)},

		// How the page is printed.
		{name: "paper in each unit", route: "chromium/convert/html", form: html("paperWidth", "210mm", "paperHeight", "11in",
			"marginTop", "72pt", "marginBottom", "96px", "marginLeft", "2.54cm", "marginRight", "3pc", "scale", "0.5", "landscape", "true",
			"singlePage", "true", "nativePageRanges", "1-3, 5, 7-", "preferCssPageSize", "true", "generateDocumentOutline", "true", "generateTaggedPdf", "true"),
			want: printed(func(p *chromium.PDF) {
				*p = chromium.PDF{PaperWidth: inches(210, 25.4), PaperHeight: 11, MarginTop: 1, MarginBottom: 1, MarginLeft: inches(2.54, 2.54), MarginRight: 0.5,
					Scale: 0.5, Landscape: true, SinglePage: true, PageRanges: "1-3, 5, 7-", PreferCSSPageSize: true,
					GenerateDocumentOutline: true, GenerateTaggedPDF: true}
			})},
		{name: "a bare number is inches", route: "chromium/convert/html", form: html("paperWidth", "8.27", "marginTop", "0"),
			want: printed(func(p *chromium.PDF) { p.PaperWidth, p.MarginTop = 8.27, 0 })},
		{name: "length with a bad number", route: "chromium/convert/html", form: html("marginTop", "1,5cm"),
			wantErr: invalid + `form field 'marginTop' is invalid (got '1,5cm', resulting to strconv.ParseFloat: parsing "1,5": invalid syntax)`},
		{name: "length not finite", route: "chromium/convert/html", form: html("marginTop", "Infmm"),
			wantErr: invalid + "form field 'marginTop' is invalid (got 'Infmm', want a length of at most 1.7976931348623157e+308 inches)"},
		{name: "paper over calq's bound", route: "chromium/convert/html", form: html("paperHeight", "6m"),
			wantErr: invalid + "form field 'paperHeight' is invalid (got '6m', resulting to strconv.ParseFloat: parsing \"6m\": invalid syntax)"},
		{name: "paper over calq's bound in inches", route: "chromium/convert/html", form: html("paperHeight", "201in"),
			wantErr: invalid + "form field 'paperHeight' is invalid (got '201in', want a length of at most 200 inches)"},
		{name: "scale over Chromium's", route: "chromium/convert/html", form: html("scale", "3"),
			wantErr: invalid + "form field 'scale' is invalid (got '3', resulting to value is superior to 2)"},
		{name: "scale NaN", route: "chromium/convert/html", form: html("scale", "NaN"),
			wantErr: invalid + "form field 'scale' is invalid (got 'NaN', resulting to value is not a finite number)"},
		{name: "header template", route: "chromium/convert/html", form: withFiles([]File{page, header}),
			want: printed(func(p *chromium.PDF) { p.HeaderHTML = `<span class="pageNumber"></span>` })},
		{name: "footer template over calq's bound", route: "chromium/convert/html", form: withFiles([]File{page, big}),
			wantErr: invalid + "form file 'footer.html' is invalid (over calq's 1 MiB)"},
		{name: "transparent without the background", route: "chromium/convert/html", form: html("omitBackground", "true"),
			wantErr: "omitBackground requires printBackground set to true"},
		{name: "nothing to print on", route: "chromium/convert/html", form: html("paperWidth", "0", "paperHeight", "0",
			"marginTop", "1000000", "marginBottom", "1000000", "marginLeft", "1000000", "marginRight", "1000000"),
			wantErr: "Chromium does not handle the provided settings; please check for aberrant form values"},
		{name: "margins wider than the paper", route: "chromium/convert/html", form: html("marginLeft", "5in", "marginRight", "3.5in"),
			wantErr: "Chromium does not handle the provided settings; please check for aberrant form values"},
		{name: "a negative margin", route: "chromium/convert/html", form: html("marginLeft", "-1mm"),
			wantErr: "Chromium does not handle the provided settings; please check for aberrant form values"},
		{name: "single page: its height is the content's", route: "chromium/convert/html", form: html("singlePage", "true", "marginTop", "6in", "marginBottom", "6in"),
			want: printed(func(p *chromium.PDF) { p.SinglePage, p.MarginTop, p.MarginBottom = true, 6, 6 })},
		{name: "page ranges foo", route: "chromium/convert/html", form: html("nativePageRanges", "foo"),
			wantErr: "Chromium does not handle the page ranges 'foo' (nativePageRanges) syntax"},
		{name: "page ranges backwards", route: "chromium/convert/html", form: html("nativePageRanges", "3-1"),
			wantErr: "Chromium does not handle the page ranges '3-1' (nativePageRanges) syntax"},
		{name: "page zero", route: "chromium/convert/html", form: html("nativePageRanges", "0-2"),
			wantErr: "Chromium does not handle the page ranges '0-2' (nativePageRanges) syntax"},
		{name: "page ranges past the end are Chromium's to find", route: "chromium/convert/html", form: html("nativePageRanges", "2-3"),
			want: printed(func(p *chromium.PDF) { p.PageRanges = "2-3" })},

		// The PDF fields the routes share, and their order.
		{name: "pdf fields", route: "chromium/convert/html", form: html("pdfa", "PDF/A-2b", "pdfua", "true", "splitMode", "intervals",
			"splitSpan", "2", "metadata", `{"Author":"calq"}`, "flatten", "true", "ownerPassword", "o", "mailTo", "a@example.com"),
			want: ChromiumOptions{Load: defaultLoad(), PDF: chromium.DefaultPDF(), Index: page.Path, PDFA: 2, PDFUA: true, MailTo: []string{"a@example.com"},
				Post: Post{Split: &Split{Mode: "intervals", Span: "2"}, Metadata: map[string]any{"Author": "calq"}, Flatten: true,
					Encrypt: &Encryption{OwnerPassword: "o", Permissions: Permissions{true, true, true, true, true, true}}}}},
		{name: "PDF/A with a user password", route: "chromium/convert/html", form: html("pdfa", "PDF/A-1b", "userPassword", "u"),
			wantErr: invalid + "PDF/A format is incompatible with encryption"},
		{name: "pdfa foo", route: "chromium/convert/html", form: html("pdfa", "foo"),
			wantErr: "The requested PDF format is not supported, or no PDF engine could apply it. Valid formats include PDF/A-1b, PDF/A-2b, PDF/A-3b, and PDF/UA."},
		{name: "pdfua foo", route: "chromium/convert/html", form: html("pdfua", "foo"), wantErr: invalid + badLine("pdfua", boolFoo)},
		{name: "metadata foo", route: "chromium/convert/html", form: html("metadata", "foo"),
			wantErr: invalid + badLine("metadata", "unmarshal metadata: "+jsonFoo)},
		{name: "split mode foo", route: "chromium/convert/html", form: html("splitMode", "foo", "splitSpan", "2"),
			wantErr: invalid + "form field 'splitMode' is invalid (got 'foo', resulting to wrong value, expected either 'intervals' or 'pages')"},
		{name: "split span foo", route: "chromium/convert/html", form: html("splitMode", "intervals", "splitSpan", "foo"),
			wantErr: invalid + `form field 'splitSpan' is invalid (got 'foo', resulting to strconv.Atoi: parsing "foo": invalid syntax)`},
		{name: "split pages not a selection", route: "chromium/convert/html", form: html("splitMode", "pages", "splitSpan", "1-2$"),
			wantErr: "The requested split mode is not supported, or no PDF engine could process it. Valid modes: 'intervals', 'pages'."},
		{name: "a watermark image without its file", route: "chromium/convert/html", form: html("watermarkSource", "image"),
			wantErr: invalid + "a watermark file is required for image or pdf source"},
		{name: "what Chromium would refuse is said before what the PDF engines would", route: "chromium/convert/html",
			form:    html("pdfa", "foo", "splitMode", "pages", "splitSpan", "x!", "omitBackground", "true"),
			wantErr: "omitBackground requires printBackground set to true"},
		{name: "screenshots take no PDF field", route: "chromium/screenshot/html", form: html("pdfa", "foo", "splitMode", "foo", "omitBackground", "true"),
			want: ChromiumOptions{Load: load(func(l *chromium.Load) { l.OmitBackground = true }).Load, Shot: chromium.DefaultScreenshot(), Index: page.Path}},

		// The url routes.
		{name: "url", route: "chromium/screenshot/url", form: formOf("url", "https://example.com/a?b=c"),
			want: ChromiumOptions{URL: "https://example.com/a?b=c", Load: defaultLoad(), Shot: chromium.DefaultScreenshot()}},
		{name: "file url", route: "chromium/convert/url", form: formOf("url", "FILE:///etc/passwd"),
			wantErr: "file:// URLs are not accepted on this route. Use the /convert/html or /convert/markdown routes to render local HTML"},
		{name: "url that does not parse", route: "chromium/convert/url", form: formOf("url", "http://[::1"),
			wantErr: `Invalid URL: parse "http://[::1": missing ']' in host`},
		{name: "javascript url", route: "chromium/convert/url", form: formOf("url", "javascript:alert(1)"),
			wantErr: "Invalid URL: 'javascript:alert(1)' is not an http:// or https:// URL with a host; calq loads no other page on this route"},
		{name: "a browser's own page", route: "chromium/screenshot/url", form: formOf("url", "chrome://settings"),
			wantErr: "Invalid URL: 'chrome://settings' is not an http:// or https:// URL with a host; calq loads no other page on this route"},

		// Screenshots.
		{name: "screenshot", route: "chromium/screenshot/html", form: html("width", "1280", "height", "720", "clip", "true", "selector", "#chart",
			"format", "webp", "quality", "0", "optimizeForSpeed", "true", "deviceScaleFactor", "2"),
			want: ChromiumOptions{Load: defaultLoad(), Index: page.Path, Shot: chromium.Screenshot{Width: 1280, Height: 720, Clip: true,
				Selector: "#chart", Format: "webp", Quality: 0, OptimizeForSpeed: true, DeviceScaleFactor: 2}}},
		{name: "quality over 100", route: "chromium/screenshot/html", form: html("quality", "101"),
			wantErr: invalid + "form field 'quality' is invalid (got '101', resulting to value is superior to 100)"},
		{name: "format in capitals", route: "chromium/screenshot/html", form: html("format", "PNG"),
			wantErr: invalid + "form field 'format' is invalid (got 'PNG', resulting to wrong value, expected either 'png', 'jpeg' or 'webp')"},
		{name: "width over calq's bound", route: "chromium/screenshot/html", form: html("width", "10001"),
			wantErr: invalid + "form field 'width' is invalid (got '10001', resulting to value is superior to 10000)"},
		{name: "height zero", route: "chromium/screenshot/html", form: html("height", "0"),
			wantErr: invalid + "form field 'height' is invalid (got '0', resulting to value is inferior to 1)"},
		{name: "device scale factor over calq's bound", route: "chromium/screenshot/html", form: html("deviceScaleFactor", "5"),
			wantErr: invalid + "form field 'deviceScaleFactor' is invalid (got '5', resulting to value is superior to 4)"},

		// Markdown.
		{name: "markdown files in Gotenberg's order", route: "chromium/screenshot/markdown",
			form: withFiles([]File{page, {Name: "page_1.md", Path: "/d/0002.md"}, {Name: "b.MD", Path: "/d/0003.md"}, {Name: "c.md", Path: "/d/0004.md", Field: "embeds"}}),
			want: ChromiumOptions{Load: defaultLoad(), Shot: chromium.DefaultScreenshot(), Index: page.Path,
				Markdown: []File{{Name: "page_1.md", Path: "/d/0002.md"}, {Name: "b.MD", Path: "/d/0003.md"}}}},
		{name: "markdown without .md", route: "chromium/convert/markdown", form: html(),
			wantErr: invalid + "no form file found for extensions: [.md]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Chromium(tc.route, tc.form)
			if msg := errMsg(err); msg != tc.wantErr && !(strings.HasPrefix(tc.wantErr, "resulting") && strings.HasSuffix(msg, tc.wantErr)) {
				t.Errorf("got error %q, want %q", msg, tc.wantErr)
			}
			if status := cmpStatus(tc.wantStatus); err != nil && err.(*Error).Status != status {
				t.Errorf("got status %d, want %d", err.(*Error).Status, status)
			}
			if err == nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func cmpStatus(s int) int {
	if s == 0 {
		return 400
	}
	return s
}

// manyHeaders is a JSON object of n headers.
func manyHeaders(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"X-` + strings.Repeat("a", i+1) + `":"v"`)
	}
	return b.String() + "}"
}

// inches is n units of which per make an inch, computed as Gotenberg
// computes it.
func inches(n, per float64) float64 { return n * (1 / per) }
