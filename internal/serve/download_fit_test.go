package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"calq/internal/serve/webhook"
)

// TestDownloadFit: a file downloadFrom fetches that the route cannot
// take (an .xml on a PDF route, not marked embedded) is left out and
// logged, as Gotenberg leaves out a file its route does not take; the
// same file uploaded is refused, naming it; a request left with no file
// to work on is refused as one without files.
func TestDownloadFit(t *testing.T) {
	three, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/static/embed_1.xml", "/static/embed_2.xml":
			fmt.Fprint(w, "<invoice/>")
		case "/static/noise.bin":
			w.Write([]byte{0, 1, 2, 3, 0xff, 0xfe})
		case "/static/b.pdf":
			w.Write(three)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(origin.Close)
	ts := loopbackTestServer(t)
	url := func(name string) string { return origin.URL + "/static/" + name }
	tests := []struct {
		name       string
		route      string
		parts      []part
		wantStatus int
		wantEmbeds []string // the reply's PDF's attachments, for 200
		wantPages  int      // the reply's PDF's pages, for 200, when not 0
		wantBody   string   // what the error says, otherwise
	}{
		{name: "a download not embedded that is no PDF is left out", route: "embed", wantStatus: 200, wantEmbeds: []string{"embed_1.xml"},
			parts: []part{{"files", "a.pdf", string(three)}, {"downloadFrom", "", `[{"url":"` + url("embed_1.xml") + `","embedded":true},` +
				`{"url":"` + url("embed_2.xml") + `","embedded":false}]`}}},
		{name: "a download that fits is kept", route: "merge", wantStatus: 200, wantPages: 6,
			parts: []part{{"files", "a.pdf", string(three)}, {"downloadFrom", "", `[{"url":"` + url("b.pdf") + `"},{"url":"` + url("embed_2.xml") + `"}]`}}},
		{name: "a download LibreOffice cannot convert is left out", route: "libreoffice/convert", wantStatus: 200, wantPages: 1,
			parts: []part{{"files", "a.txt", "hello"}, {"downloadFrom", "", `[{"url":"` + url("noise.bin") + `"}]`}}},
		{name: "an upload that is no PDF is refused", route: "embed", wantStatus: 400,
			parts:    []part{{"files", "a.pdf", string(three)}, {"files", "embed_2.xml", "<invoice/>"}},
			wantBody: "Invalid form data: file 'embed_2.xml' is not a PDF (this route takes .pdf files)"},
		{name: "nothing left to work on", route: "flatten", wantStatus: 400,
			parts:    []part{{"downloadFrom", "", `[{"url":"` + url("embed_2.xml") + `"}]`}},
			wantBody: "Invalid form data: no form file found for extensions: [.pdf]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, b := postRoute(t, ts.URL, tt.route, tt.parts, tt.wantStatus)
			if tt.wantStatus != http.StatusOK {
				wantBody(tt.wantBody)(t, resp, b)
				return
			}
			out := pdfs(t, resp, b)[""]
			if got := attachmentNames(t, out); tt.wantEmbeds != nil && !slices.Equal(got, tt.wantEmbeds) {
				t.Errorf("got attachments %q, want %q", got, tt.wantEmbeds)
			}
			if got := pages(t, out); tt.wantPages != 0 && got != tt.wantPages {
				t.Errorf("got %d pages, want %d", got, tt.wantPages)
			}
		})
	}
}

// TestSplitSpanSyntaxes: the split route takes the page selections of
// Gotenberg's three engines: pdfcpu's ("2-"), qpdf's ("2-z", "r1") and
// pdftk's ("2-end"), and refuses what none of them reads.
func TestSplitSpanSyntaxes(t *testing.T) {
	ts := newTestServer(t, nil)
	three := fileUpload(t, filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	for _, tc := range []struct {
		span      string
		wantPages int // of the one unified PDF; 0: refused
	}{
		{"2-", 2}, {"2-z", 2}, {"2-end", 2}, {"r1", 1}, {"r3-z", 3}, {"1-r2", 2}, {"r0", 0}, {"z-1", 0},
	} {
		t.Run(tc.span, func(t *testing.T) {
			resp := post(t, ts.URL+"/forms/pdfengines/split", []upload{three},
				map[string]string{"splitMode": "pages", "splitSpan": tc.span, "splitUnify": "true"}, nil)
			b := body(t, resp)
			if tc.wantPages == 0 {
				if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "split mode is not supported") {
					t.Errorf("got %d %.300q, want 400 and Gotenberg's sentence", resp.StatusCode, b)
				}
				return
			}
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("got status %d %.300q, want 200", resp.StatusCode, b)
			}
			if got := pages(t, pdfFile(t, b)); got != tc.wantPages {
				t.Errorf("got %d pages, want %d", got, tc.wantPages)
			}
		})
	}
}

// loopbackTestServer is a test server whose downloads may reach
// loopback, where the tests' origins listen, changed by mods.
func loopbackTestServer(t *testing.T, mods ...func(*Options)) *testServer {
	t.Helper()
	loopback, err := webhook.NewPolicy([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	return newTestServer(t, func(o *Options) {
		o.WebhookPolicy = loopback
		for _, mod := range mods {
			mod(o)
		}
	})
}

// postRoute sends parts to the route below /forms/ (a pdfengines route
// by its name alone) of the server at base, and checks the reply's
// status.
func postRoute(t *testing.T, base, route string, parts []part, status int) (*http.Response, []byte) {
	t.Helper()
	if !strings.HasPrefix(route, "libreoffice/") {
		route = "pdfengines/" + route
	}
	resp := postParts(t, base+"/forms/"+route, parts)
	b := body(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("got status %d %.300q, want %d", resp.StatusCode, b, status)
	}
	return resp, b
}
