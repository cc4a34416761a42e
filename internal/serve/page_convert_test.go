package serve

import (
	"bytes"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"calq/convert/pdf"
	"calq/internal/pdfgen"
	"calq/internal/serve/form"
)

// TestConvertPageRefused: a refused convert form comes back with every
// choice kept (the files must be chosen again, and the page says so),
// its message in the pages' words, not the API's; the page promises the
// user's real bounds.
func TestConvertPageRefused(t *testing.T) {
	ts := pageServer(t, func(o *Options) {
		o.Limits = form.Limits{MaxFile: 1 << 10, MaxFiles: 1000, PDF: pdf.Limits{MaxPages: 1}}
		o.MaxQueuedUser = 5
	})
	c := browserClient(t)
	signIn(t, c, ts.URL, "alice", "alice-secret-pw")
	doc := []upload{{"files", "letter.txt", []byte("a letter\n")}}
	var two bytes.Buffer
	if err := pdfgen.Pages(&two, 2); err != nil {
		t.Fatal(err)
	}
	choices := map[string]string{"watermarkExpression": "DRAFT <b>", "merge": "true", "mailTo": ""}

	tests := []struct {
		name   string
		fields map[string]string
		files  []upload
		status int
		says   string
	}{
		{"PDF/A with a watermark, merging and passwords",
			merged(choices, map[string]string{"pdfa": "PDF/A-2b", "userPassword": "open-sesame-1"}), doc, http.StatusBadRequest,
			"PDF/A cannot go with a watermark, passwords or merging: any change to a PDF/A file after it is made breaks its conformance. Choose a plain PDF, or leave those out."},
		{"a file over the limit", merged(choices, map[string]string{"pdfa": "PDF/A-2b"}),
			[]upload{{"files", "big.txt", make([]byte, 2<<10)}}, http.StatusRequestEntityTooLarge,
			"“big.txt” is larger than " + humanBytes(1<<10) + ", the most one file may be."},
		{"a PDF over the page limit", merged(choices, map[string]string{"pdfa": ""}),
			[]upload{{"files", "two pages.pdf", two.Bytes()}}, http.StatusRequestEntityTooLarge,
			"“two pages.pdf” is refused: the PDF has 2 pages, over the limit of 1."},
		{"more files than the user may queue", merged(choices, map[string]string{"pdfa": ""}),
			[]upload{doc[0], doc[0], doc[0], doc[0], doc[0], doc[0]}, http.StatusRequestEntityTooLarge,
			"You chose 6 files: at most 5 can be sent at once."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := postPage(t, c, ts.URL+"/convert", tt.files, tt.fields)
			page := string(body(t, resp))
			text := textOf(page)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d\n%s", resp.StatusCode, tt.status, text)
			}
			if !strings.Contains(text, tt.says) {
				t.Errorf("the page does not say %q:\n%s", tt.says, text)
			}
			for _, api := range []string{"Invalid form data", "form field", "Request Entity", "exceeds the size limit"} {
				if strings.Contains(text, api) {
					t.Errorf("the page speaks the API's words (%q):\n%s", api, text)
				}
			}
			if !strings.Contains(text, "Nothing was sent. Choose the files again") {
				t.Errorf("the page does not ask for the files again:\n%s", text)
			}
			for what, re := range map[string]string{
				"the watermark":  `id="watermark"[^>]*value="DRAFT &lt;b&gt;"`,
				"merge":          `id="merge" checked`,
				"PDF/A":          `<option value="` + regexp.QuoteMeta(tt.fields["pdfa"]) + `" selected>`,
				"the passwords":  `Type the passwords again`,
				"the user bound": `up to 5 files`,
			} {
				if what == "the passwords" && tt.fields["userPassword"] == "" || what == "PDF/A" && tt.fields["pdfa"] == "" {
					continue
				}
				if !regexp.MustCompile(re).MatchString(page) {
					t.Errorf("the page lost %s (%s):\n%s", what, re, html.UnescapeString(page))
				}
			}
		})
	}
}

// merged is a's fields with b's over them.
func merged(a, b map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}
