package chromium

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
)

// statusSet is a set of HTTP status codes to fail on; x99 stands for the
// hundred codes x00-x99, as in Gotenberg.
type statusSet map[int64]bool

func newStatusSet(codes []int64) statusSet {
	s := statusSet{}
	for _, c := range codes {
		s[c] = true
		if c%100 == 99 && c >= 199 && c <= 599 {
			for i := c - 99; i < c; i++ {
				s[i] = true
			}
		}
	}
	return s
}

func (t *tab) onResponse(e *network.EventResponseReceived) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := e.Response
	if e.Type == network.ResourceTypeDocument && e.FrameID == t.main {
		t.doc = r
		if t.fail[r.Status] {
			t.stopped = fmt.Errorf("%w: %d: %s", ErrHTTPStatus, r.Status, http.StatusText(int(r.Status)))
			t.signal()
		}
		return
	}
	if t.resFail[r.Status] && !matchesDomain(hostOf(r.URL), t.ignore) {
		t.resStatus = append(t.resStatus, fmt.Sprintf("%s - %d: %s", r.URL, r.Status, http.StatusText(int(r.Status))))
	}
}

// ignoredFailures are the loading failures that are no failure of the
// page: a request the page itself cancelled, a download.
var ignoredFailures = []string{"net::ERR_ABORTED"}

func (t *tab) onFailed(e *network.EventLoadingFailed) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.refused[e.RequestID]; ok || e.Canceled {
		return // the gate's refusals are the gate's, not the page's failures
	}
	for _, s := range ignoredFailures {
		if e.ErrorText == s {
			return
		}
	}
	if t.mainReqs[e.RequestID] {
		return // the main page: navigate reports it
	}
	t.resFailed = append(t.resFailed, fmt.Sprintf("resource %s: %s", e.Type, e.ErrorText))
}

func (t *tab) onRequest(e *network.EventRequestWillBeSent) {
	if e.Type == network.ResourceTypeDocument && e.FrameID == t.main {
		t.mu.Lock()
		t.mainReqs[e.RequestID] = true
		t.mu.Unlock()
	}
}

func (t *tab) onThrown(e *runtime.EventExceptionThrown) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := e.ExceptionDetails
	msg := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		msg = d.Exception.Description
	}
	t.thrown = append(t.thrown, fmt.Sprintf("%s (%s:%d:%d)", msg, d.URL, d.LineNumber+1, d.ColumnNumber+1))
}

// failures returns the errors the page's load options ask to fail on,
// once the page is ready.
func (t *tab) failures() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.r.Load
	switch {
	case t.stopped != nil:
		return t.stopped
	case len(t.resStatus) > 0:
		return fmt.Errorf("%w: %s", ErrResourceHTTPStatus, strings.Join(t.resStatus, "\n"))
	case l.FailOnResourceLoadingFailed && len(t.resFailed) > 0:
		return fmt.Errorf("%w: %s", ErrResourceLoadingFailed, strings.Join(t.resFailed, "\n"))
	case l.FailOnConsoleExceptions && len(t.thrown) > 0:
		return fmt.Errorf("%w: %s", ErrConsoleExceptions, strings.Join(t.thrown, "\n"))
	}
	return nil
}

// headers returns the request's headers with the extra headers that
// apply to it, or nil when none does (the request goes on unchanged).
func (t *tab) headers(e *fetch.EventRequestPaused) []*fetch.HeaderEntry {
	var extra []*fetch.HeaderEntry
	for _, h := range t.r.Load.ExtraHTTPHeaders {
		if h.Scope != "" {
			re, err := regexp.Compile(h.Scope)
			if err != nil || !re.MatchString(e.Request.URL) {
				continue
			}
		}
		extra = append(extra, &fetch.HeaderEntry{Name: h.Name, Value: h.Value})
	}
	if len(extra) == 0 {
		return nil
	}
	var all []*fetch.HeaderEntry
	for k, v := range e.Request.Headers {
		if s, ok := v.(string); ok && !overridden(k, extra) {
			all = append(all, &fetch.HeaderEntry{Name: k, Value: s})
		}
	}
	return append(all, extra...)
}

func overridden(name string, extra []*fetch.HeaderEntry) bool {
	for _, h := range extra {
		if strings.EqualFold(h.Name, name) {
			return true
		}
	}
	return false
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// normalizeDomains turns "example.com", "*.example.com",
// "https://example.com/x" or "example.com:443" into "example.com".
func normalizeDomains(domains []string) []string {
	var out []string
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSpace(d))
		if !strings.Contains(d, "://") {
			d = "https://" + d
		}
		h := hostOf(d)
		h = strings.TrimPrefix(strings.TrimPrefix(h, "*."), ".")
		if h != "" {
			out = append(out, h)
		}
	}
	return out
}

// matchesDomain says whether host is one of domains or a subdomain of one.
func matchesDomain(host string, domains []string) bool {
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}
