package chromium

import (
	"time"
)

// Load is how a page is loaded and when it is ready: Gotenberg's
// Chromium options common to PDFs and screenshots. The zero value loads
// the page, waits for the network to be idle and fails on nothing.
type Load struct {
	// SkipNetworkIdleEvent and SkipNetworkAlmostIdleEvent stop waiting for
	// the network to be idle (no request for 500 ms) or almost idle (at
	// most 2 for 500 ms) after the load event.
	SkipNetworkIdleEvent       bool `json:"skip_network_idle_event,omitempty"`
	SkipNetworkAlmostIdleEvent bool `json:"skip_network_almost_idle_event,omitempty"`
	// FailOnHTTPStatusCodes fails the conversion when the main page
	// answers one of these codes (ErrHTTPStatus); 499 stands for 400-499
	// and 599 for 500-599, as in Gotenberg.
	FailOnHTTPStatusCodes []int64 `json:"fail_on_http_status_codes,omitempty"`
	// FailOnResourceHTTPStatusCodes does the same for the page's
	// resources (ErrResourceHTTPStatus), except those of hosts in
	// IgnoreResourceHTTPStatusDomains (a host or its subdomains).
	FailOnResourceHTTPStatusCodes   []int64  `json:"fail_on_resource_http_status_codes,omitempty"`
	IgnoreResourceHTTPStatusDomains []string `json:"ignore_resource_http_status_domains,omitempty"`
	// FailOnResourceLoadingFailed fails when a resource could not be
	// loaded at all (ErrResourceLoadingFailed), FailOnConsoleExceptions
	// when the page threw an uncaught exception (ErrConsoleExceptions).
	FailOnResourceLoadingFailed bool `json:"fail_on_resource_loading_failed,omitempty"`
	FailOnConsoleExceptions     bool `json:"fail_on_console_exceptions,omitempty"`
	// WaitDelay waits this long once the page is ready.
	WaitDelay time.Duration `json:"wait_delay,omitempty"`
	// WaitWindowStatus waits until window.status is this value.
	WaitWindowStatus string `json:"wait_window_status,omitempty"`
	// WaitForExpression waits until this JavaScript expression is true
	// (ErrInvalidExpression when it throws or is undefined).
	WaitForExpression string `json:"wait_for_expression,omitempty"`
	// WaitForSelector waits until an element matches this CSS selector
	// (ErrInvalidSelector when the selector is not valid).
	WaitForSelector string `json:"wait_for_selector,omitempty"`
	// Cookies are set in the conversion's own browser context before the
	// page loads.
	Cookies []Cookie `json:"cookies,omitempty"`
	// UserAgent replaces the browser's User-Agent.
	UserAgent string `json:"user_agent,omitempty"`
	// ExtraHTTPHeaders are added to the page's requests: to all, or to
	// those whose URL matches the header's Scope.
	ExtraHTTPHeaders []Header `json:"extra_http_headers,omitempty"`
	// EmulatedMediaType is "screen", "print" or "" (print for PDFs, as
	// Chromium prints, screen for screenshots).
	EmulatedMediaType     string         `json:"emulated_media_type,omitempty"`
	EmulatedMediaFeatures []MediaFeature `json:"emulated_media_features,omitempty"`
	// OmitBackground makes the page's default white background
	// transparent.
	OmitBackground bool `json:"omit_background,omitempty"`
}

// Cookie is a cookie set before the page loads.
type Cookie struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Domain   string `json:"domain"`
	Path     string `json:"path,omitempty"`
	Secure   bool   `json:"secure,omitempty"`
	HTTPOnly bool   `json:"httpOnly,omitempty"`
	// SameSite is "Strict", "Lax", "None" or "".
	SameSite string `json:"sameSite,omitempty"`
}

// Header is an extra HTTP header; Scope, when set, is a regular
// expression (Go's syntax) that a request's URL must match for the
// header to be sent with it.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Scope string `json:"scope,omitempty"`
}

// MediaFeature is an emulated CSS media feature, such as
// prefers-color-scheme: dark.
type MediaFeature struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PDF is how a page is printed: Gotenberg's PDF options. Lengths are in
// inches. The zero value is not Chromium's default: use DefaultPDF.
type PDF struct {
	Landscape       bool    `json:"landscape,omitempty"`
	PrintBackground bool    `json:"print_background,omitempty"`
	Scale           float64 `json:"scale"`
	// SinglePage prints the whole page on one page as tall as its
	// content.
	SinglePage   bool    `json:"single_page,omitempty"`
	PaperWidth   float64 `json:"paper_width"`
	PaperHeight  float64 `json:"paper_height"`
	MarginTop    float64 `json:"margin_top"`
	MarginBottom float64 `json:"margin_bottom"`
	MarginLeft   float64 `json:"margin_left"`
	MarginRight  float64 `json:"margin_right"`
	// PageRanges is Chromium's own page ranges ("1-5, 8"); a range past
	// the last page is an ErrPageRanges.
	PageRanges string `json:"page_ranges,omitempty"`
	// HeaderHTML and FooterHTML are complete HTML documents printed in
	// each page's top and bottom margins; elements of class pageNumber,
	// totalPages, title, url and date get those values.
	HeaderHTML string `json:"header_html,omitempty"`
	FooterHTML string `json:"footer_html,omitempty"`
	// PreferCSSPageSize lets the page's @page size win over the paper.
	PreferCSSPageSize       bool `json:"prefer_css_page_size,omitempty"`
	GenerateDocumentOutline bool `json:"generate_document_outline,omitempty"`
	GenerateTaggedPDF       bool `json:"generate_tagged_pdf,omitempty"`
}

// DefaultPDF is Gotenberg's default: Letter paper (8.5 x 11 inches),
// margins of 0.39 inch, scale 1.
func DefaultPDF() PDF {
	return PDF{Scale: 1, PaperWidth: 8.5, PaperHeight: 11,
		MarginTop: 0.39, MarginBottom: 0.39, MarginLeft: 0.39, MarginRight: 0.39}
}

// Screenshot is how a page is captured as an image.
type Screenshot struct {
	// Width and Height are the viewport in CSS pixels (defaults 800 x
	// 600); with Clip, the image is cut to them, else it is the whole
	// page as tall as its content.
	Width  int  `json:"width"`
	Height int  `json:"height"`
	Clip   bool `json:"clip,omitempty"`
	// Selector, when set, captures only the first element it matches.
	Selector string `json:"selector,omitempty"`
	// Format is "png", "jpeg" or "webp"; Quality (0-100) applies to jpeg
	// and webp.
	Format            string  `json:"format"`
	Quality           int     `json:"quality"`
	OptimizeForSpeed  bool    `json:"optimize_for_speed,omitempty"`
	DeviceScaleFactor float64 `json:"device_scale_factor"`
}

// DefaultScreenshot is Gotenberg's default: 800 x 600, png, quality 100,
// device scale factor 1.
func DefaultScreenshot() Screenshot {
	return Screenshot{Width: 800, Height: 600, Format: "png", Quality: 100, DeviceScaleFactor: 1}
}

// Request is one page to convert.
type Request struct {
	// URL is the page: http(s)://... or file://... of a file under Dir.
	URL string
	// Dir is the conversion's own directory: file:// loads are allowed
	// only below it ("" allows none). Nothing else on the disk is
	// reachable, another conversion's directory included.
	Dir string
	// Load says how the page is loaded and when it is ready.
	Load Load
	// Timeout bounds the whole conversion (0: Config.Timeout); past it
	// the conversion fails with ErrTimeout and its tab is closed.
	Timeout time.Duration
}

// Policy decides what a page may load. Every request of the page, its
// main document included, goes through it.
type Policy struct {
	// Allow and Deny are regular expressions on the whole URL
	// (Gotenberg's CHROMIUM_ALLOW_LIST and CHROMIUM_DENY_LIST, compiled by
	// CompilePattern, or Go's *regexp.Regexp): when Allow
	// is not empty a URL must match one of them, and it must match no
	// Deny. file:// URLs are also bound to Request.Dir whatever the lists
	// say.
	Allow []Pattern
	Deny  []Pattern
	// AllowNetworks are the private, loopback, link-local or otherwise
	// non-public networks (CIDRs, or host[:port]) that pages may reach;
	// every other non-public address is refused at connect time, after
	// name resolution, so that a name cannot be made to point there.
	// AllowAllNetworks lets every address (CHROMIUM_DENY_PRIVATE_IPS=false
	// with an allow list of .+, as Gotenberg's own tests run it).
	AllowNetworks    []string
	AllowAllNetworks bool
	// DenyPublic refuses every public address (CHROMIUM_DENY_PUBLIC_IPS).
	DenyPublic bool
}

// Config is a Pool's configuration; its zero value is usable.
type Config struct {
	// Binary is the chromium executable ("": Find's).
	Binary string
	// Browsers is how many browser processes the pool keeps (0: sized for
	// the machine, see DefaultBrowsers) and Tabs how many conversions
	// each runs at once (0: DefaultTabs).
	Browsers int
	Tabs     int
	// RestartAfter restarts a browser after this many conversions (0:
	// never).
	RestartAfter int
	// MemoryLimit restarts a browser whose process tree's resident
	// memory goes over it, failing the conversions it was running with
	// ErrMemoryLimit (0: DefaultMemoryLimit).
	MemoryLimit int64
	// StartTimeout bounds a browser's start (0: 20 s); Timeout bounds a
	// conversion whose Request has none (0: 30 s).
	StartTimeout time.Duration
	Timeout      time.Duration
	// DisableJavaScript turns JavaScript off in every page.
	DisableJavaScript bool
	// IgnoreCertificateErrors, AllowInsecureLocalhost,
	// DisableWebSecurity, AllowFileAccessFromFiles, HostResolverRules and
	// ProxyServer are Chromium's switches of the same names.
	IgnoreCertificateErrors  bool
	AllowInsecureLocalhost   bool
	DisableWebSecurity       bool
	AllowFileAccessFromFiles bool
	HostResolverRules        string
	ProxyServer              string
	// Policy is what pages may load.
	Policy Policy
	// Log, when set, receives one line per browser start, restart and
	// stop.
	Log func(msg string)
}
