package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"calq/convert/pdf"
)

// TestDownloadFrom: Gotenberg's downloadFrom field on the libreoffice
// route, against a real origin on loopback: the files it lists are
// converted as the request's own, with their extra headers sent, and an
// origin the webhooks' policy refuses is refused with 403.
func TestDownloadFrom(t *testing.T) {
	var foo atomic.Value
	foo.Store("")
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foo.Store(r.Header.Get("X-Foo"))
		switch r.URL.Path {
		case "/static/b.txt":
			fmt.Fprint(w, "Downloaded second\n")
		case "/doc":
			w.Header().Set("Content-Disposition", `attachment; filename="a.txt"`)
			fmt.Fprint(w, "Downloaded first\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(origin.Close)
	open := loopbackTestServer(t)
	closed := newTestServer(t, nil)
	off := loopbackTestServer(t, func(o *Options) { o.NoDownloadFrom = true })
	tests := []struct {
		name       string
		ts         *testServer
		fields     map[string]string
		files      []upload
		wantStatus int
		wantText   []string // in this order in the PDF
		wantBody   string
	}{
		{name: "one download, its header sent", ts: open, wantStatus: 200, wantText: []string{"Downloaded second"},
			fields: map[string]string{"downloadFrom": `[{"url":"` + origin.URL + `/static/b.txt","extraHttpHeaders":{"X-Foo":"bar"}}]`}},
		{name: "downloads merged with an upload in name order", ts: open, wantStatus: 200,
			wantText: []string{"Downloaded first", "Downloaded second", "Uploaded third"},
			files:    []upload{{"files", "c.txt", []byte("Uploaded third\n")}},
			fields: map[string]string{"merge": "true",
				"downloadFrom": `[{"url":"` + origin.URL + `/static/b.txt"},{"url":"` + origin.URL + `/doc"}]`}},
		{name: "loopback refused without --webhook-allow", ts: closed, wantStatus: http.StatusForbidden,
			fields:   map[string]string{"downloadFrom": `[{"url":"` + origin.URL + `/static/b.txt"}]`},
			wantBody: "is a private, loopback or reserved address"},
		{name: "origin's 404", ts: open, wantStatus: http.StatusBadRequest,
			fields:   map[string]string{"downloadFrom": `[{"url":"` + origin.URL + `/gone"}]`},
			wantBody: "got status: '404 Not Found'"},
		{name: "turned off by --no-download-from", ts: off, wantStatus: http.StatusBadRequest,
			fields:   map[string]string{"downloadFrom": `[{"url":"` + origin.URL + `/static/b.txt"}]`},
			wantBody: "Invalid form data: form field 'downloadFrom' is turned off on this server"},
		{name: "not JSON", ts: open, wantStatus: http.StatusBadRequest,
			fields:   map[string]string{"downloadFrom": `[{"url":`},
			wantBody: "Invalid 'downloadFrom' form field value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			foo.Store("")
			resp := post(t, tt.ts.URL+"/forms/libreoffice/convert", tt.files, tt.fields, nil)
			b := body(t, resp)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("got status %d (%s), want %d", resp.StatusCode, b, tt.wantStatus)
			}
			if tt.wantStatus != 200 {
				if !strings.Contains(string(b), tt.wantBody) {
					t.Errorf("got body %q, want it to say %q", b, tt.wantBody)
				}
				return
			}
			text, err := pdf.Text(pdfFile(t, b), "")
			if err != nil {
				t.Fatal(err)
			}
			at := 0
			for _, w := range tt.wantText {
				i := strings.Index(text[at:], w)
				if i < 0 {
					t.Fatalf("got text %q, want %q after byte %d", text, w, at)
				}
				at += i + len(w)
			}
			if strings.Contains(tt.fields["downloadFrom"], "X-Foo") && foo.Load() != "bar" {
				t.Errorf("got X-Foo %q at the origin, want bar", foo.Load())
			}
		})
	}
}
