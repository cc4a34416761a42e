package serve

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestMetadataRefused: a metadata value calq cannot write is refused with
// 400 and Gotenberg's sentence, naming the key and the reason; ExifTool's
// file pseudo-tags (which Gotenberg drops because ExifTool would rename or
// link the file) are plain entries of the information dictionary to calq,
// which interprets no key: the write succeeds and touches nothing else.
func TestMetadataRefused(t *testing.T) {
	ts := newTestServer(t, nil)
	three := threePages(t)
	const sentence = "The requested metadata could not be written"
	tests := []struct {
		name     string
		route    string
		metadata string
		status   int
		want     []string // in the body of a refusal
	}{
		{"newline in a standard value", "pdfengines/metadata/write", `{"Title":"test\n-FileName=/tmp/inject_proof"}`, 400,
			[]string{sentence, `"Title"`, "control character"}},
		{"carriage return in a custom value", "pdfengines/metadata/write", `{"Company":"ACME\r\nTitle: forged"}`, 400,
			[]string{sentence, `"Company"`, "control character"}},
		{"NUL in a list item", "pdfengines/metadata/write", `{"Keywords":["a","b\u0000c"]}`, 400,
			[]string{sentence, `"Keywords"`, "control character"}},
		{"a list of numbers", "pdfengines/metadata/write", `{"Keywords":["a",1]}`, 400, []string{sentence, `"Keywords"`, "strings only"}},
		{"an object as a value", "pdfengines/metadata/write", `{"Title":{"a":1}}`, 400, []string{sentence, `"Title"`, "want a string"}},
		{"a key with a space", "pdfengines/metadata/write", `{"My Key":"v"}`, 400, []string{sentence, `"My Key"`, "printable ASCII"}},
		{"newline on merge", "pdfengines/merge", `{"Title":"a\nb"}`, 400, []string{sentence, `"Title"`}},
		{"newline on split", "pdfengines/split", `{"Author":"a\nb"}`, 400, []string{sentence, `"Author"`}},
		{"newline on libreoffice/convert", "libreoffice/convert", `{"Subject":"a\nb"}`, 400, []string{sentence, `"Subject"`}},
		{"group-prefixed file pseudo-tags", "pdfengines/metadata/write",
			`{"System:FileName":"stolen.pdf","System:Directory":"/tmp","HardLink":"/tmp/h","SymLink":"/tmp/s","FilePermissions":"777","Author":"legit"}`, 200, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := []part{{"files", "a.pdf", three}, {"metadata", "", tt.metadata}}
			switch tt.route {
			case "pdfengines/merge":
				parts = append(parts, part{"files", "b.pdf", three})
			case "pdfengines/split":
				parts = append(parts, part{"splitMode", "", "intervals"}, part{"splitSpan", "", "1"})
			case "libreoffice/convert":
				parts[0] = part{"files", "a.txt", "text\n"}
			}
			resp := postParts(t, ts.URL+"/forms/"+tt.route, parts)
			b := body(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("got status %d %q, want %d", resp.StatusCode, b, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("got body %q, want it to say %q", b, w)
				}
			}
			if tt.status != 200 {
				return
			}
			resp = postParts(t, ts.URL+"/forms/pdfengines/metadata/read", []part{{"files", "a.pdf", string(b)}})
			rb := body(t, resp)
			var got map[string]map[string]any
			if err := json.Unmarshal(rb, &got); err != nil {
				t.Fatalf("metadata/read gave %q: %v", rb, err)
			}
			if got["a.pdf"]["Author"] != "legit" || got["a.pdf"]["System:FileName"] != "stolen.pdf" {
				t.Errorf("got %v, want Author legit and System:FileName as a plain entry", got["a.pdf"])
			}
			for _, p := range []string{"/tmp/h", "/tmp/s", "/tmp/stolen.pdf"} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s exists: a metadata key touched the file system", p)
				}
			}
		})
	}
}
