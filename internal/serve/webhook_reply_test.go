package serve

import (
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calq/internal/serve/webhook"
)

// webhookServer is a test server whose webhooks may reach allow.
func webhookServer(t *testing.T, allow ...string) *testServer {
	t.Helper()
	return newTestServer(t, func(o *Options) {
		p, err := webhook.NewPolicy(allow)
		if err != nil {
			t.Fatal(err)
		}
		o.WebhookPolicy = p
		o.Webhooks = webhook.NewSender(p, webhook.Options{Base: 10 * time.Millisecond})
	})
}

// TestWebhookForbidden: a webhook URL the policy refuses (loopback, a
// private network) is Gotenberg's 403, with the trace, and nothing is
// kept of the request.
func TestWebhookForbidden(t *testing.T) {
	ts := webhookServer(t)
	three := fileUpload(t, filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	for _, header := range []string{"Gotenberg-Webhook-Url", "Gotenberg-Webhook-Error-Url", "Gotenberg-Webhook-Events-Url"} {
		t.Run(header, func(t *testing.T) {
			h := http.Header{"Gotenberg-Webhook-Url": {"https://example.com/in"}, "Gotenberg-Webhook-Error-Url": {"https://example.com/err"},
				"Gotenberg-Trace": {"forbidden"}}
			h.Set(header, "http://127.0.0.1:9/hook")
			resp := post(t, ts.URL+"/forms/pdfengines/flatten", []upload{three}, nil, h)
			b := body(t, resp)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), header) {
				t.Errorf("got %d %q, want 403 naming %s", resp.StatusCode, b, header)
			}
			if got := resp.Header.Get("Gotenberg-Trace"); got != "forbidden" {
				t.Errorf("got Gotenberg-Trace %q, want forbidden", got)
			}
		})
	}
}

// TestWebhookDelivery: the delivery of a result carries what Gotenberg's
// does: the 204's Gotenberg-Trace, the result's Content-Type and name, an
// extra header's Content-Disposition over calq's, and the caller's W3C
// trace id in traceparent.
func TestWebhookDelivery(t *testing.T) {
	type hit struct {
		header http.Header
		body   []byte
	}
	hits := make(chan hit, 4)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{r.Header.Clone(), b}
	}))
	defer sink.Close()
	ts := webhookServer(t, "127.0.0.1/32")
	three := fileUpload(t, filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	cases := []struct {
		name        string
		header      http.Header
		disposition string
		filename    string
	}{
		{"a result", http.Header{}, "", "pages_3.pdf"},
		{"an output filename", http.Header{"Gotenberg-Output-Filename": {"foo"}}, "", "foo.pdf"},
		{"extra headers", http.Header{"Gotenberg-Webhook-Extra-Http-Headers": {`{"X-Foo":"bar","Content-Disposition":"inline"}`}}, "inline", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := c.header.Clone()
			h.Set("Gotenberg-Webhook-Url", sink.URL+"/webhook")
			h.Set("Gotenberg-Webhook-Error-Url", sink.URL+"/webhook/error")
			h.Set("Traceparent", parent)
			resp := post(t, ts.URL+"/forms/pdfengines/flatten", []upload{three}, nil, h)
			body(t, resp)
			trace := resp.Header.Get("Gotenberg-Trace")
			if resp.StatusCode != http.StatusNoContent || trace == "" {
				t.Fatalf("got %d with Gotenberg-Trace %q, want 204 with a trace", resp.StatusCode, trace)
			}
			got := received(t, hits)
			if v := got.header.Get("Gotenberg-Trace"); v != trace {
				t.Errorf("got the delivery's Gotenberg-Trace %q, want the 204's %q", v, trace)
			}
			if v := got.header.Get("Content-Type"); v != "application/pdf" {
				t.Errorf("got Content-Type %q, want application/pdf", v)
			}
			if tp := strings.Split(got.header.Get("Traceparent"), "-"); len(tp) != 4 || tp[1] != "0af7651916cd43dd8448eb211c80319c" {
				t.Errorf("got traceparent %q, want the caller's trace id", got.header.Get("Traceparent"))
			}
			cd := got.header.Get("Content-Disposition")
			if c.disposition != "" && cd != c.disposition {
				t.Errorf("got Content-Disposition %q, want %q", cd, c.disposition)
			}
			if c.filename != "" {
				if _, params, err := mime.ParseMediaType(cd); err != nil || params["filename"] != c.filename {
					t.Errorf("got Content-Disposition %q, want the file name %q", cd, c.filename)
				}
			}
			if v := got.header.Get("X-Foo"); c.name == "extra headers" && v != "bar" {
				t.Errorf("got X-Foo %q, want bar", v)
			}
		})
	}
}
