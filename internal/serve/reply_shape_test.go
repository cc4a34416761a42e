package serve

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"calq/convert/sniff"
)

// replyCase is one request to a Gotenberg route and the reply's shape
// Gotenberg's clients and its own integration suite rely on.
type replyCase struct {
	name   string
	route  string // below /forms/
	files  []upload
	fields map[string]string
	header http.Header

	status   int
	ctype    string   // Content-Type, exactly
	body     string   // the whole body, exactly, when not ""
	filename string   // Content-Disposition's filename, when not ""
	zip      []string // a zip's entries, in order, when not nil
}

// TestReplyShape: what Gotenberg's routes answer, header by header and
// byte for byte where Gotenberg's clients compare them: the names of the
// files (a converted document keeps its extension in a zip, split parts
// are numbered from 0, Gotenberg-Output-Filename's last path segment),
// and error replies as one plain-text sentence without a line feed.
func TestReplyShape(t *testing.T) {
	ts := newTestServer(t, nil)
	three := fileUpload(t, filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	other := upload{"files", "other.pdf", three.content}
	a := upload{"files", "a.txt", []byte("first\n")}
	b := upload{"files", "b.txt", []byte("second\n")}
	long := upload{"files", "long.txt", longText(120)}
	protected := fileUpload(t, filepath.Join(repoTestdata, "convert", "protected", "protected.docx"))
	docx := fileUpload(t, filepath.Join(repoTestdata, "convert", "sample_3.docx"))
	tika := fileUpload(t, filepath.Join(repoTestdata, "convert", "testWORD_protected_passtika.docx"))
	tika.name = "tika.docx"
	const plain = "text/plain; charset=UTF-8"
	cases := []replyCase{
		{name: "converted documents in a zip keep their extension", route: "libreoffice/convert",
			files: []upload{b, a}, status: 200, ctype: "application/zip", zip: []string{"a.txt.pdf", "b.txt.pdf"}},
		{name: "one converted document is named after it", route: "libreoffice/convert",
			files: []upload{a}, status: 200, ctype: "application/pdf", filename: "a.pdf"},
		{name: "a converted document's split parts count from 0 after its full name", route: "libreoffice/convert",
			files: []upload{long, a}, fields: map[string]string{"splitMode": "intervals", "splitSpan": "1000"},
			status: 200, ctype: "application/zip", zip: []string{"a.txt_0.pdf", "long.txt_0.pdf"}},
		{name: "a converted document's unified pages keep its full name", route: "libreoffice/convert",
			files: []upload{long}, fields: map[string]string{"splitMode": "pages", "splitSpan": "1", "splitUnify": "true"},
			status: 200, ctype: "application/pdf", filename: "long.txt.pdf"},
		{name: "split parts count from 0", route: "pdfengines/split",
			files: []upload{three}, fields: map[string]string{"splitMode": "intervals", "splitSpan": "2"},
			status: 200, ctype: "application/zip", zip: []string{"pages_3_0.pdf", "pages_3_1.pdf"}},
		{name: "split parts of several PDFs", route: "pdfengines/split",
			files: []upload{other, three}, fields: map[string]string{"splitMode": "pages", "splitSpan": "1-2,3"},
			status: 200, ctype: "application/zip", zip: []string{"pages_3_0.pdf", "pages_3_1.pdf", "pages_3_2.pdf", "other_0.pdf", "other_1.pdf", "other_2.pdf"}},
		{name: "unified pages are one PDF named after the input", route: "pdfengines/split",
			files: []upload{three}, fields: map[string]string{"splitMode": "pages", "splitSpan": "1-2", "splitUnify": "true"},
			status: 200, ctype: "application/pdf", filename: "pages_3.pdf"},
		{name: "PDFs worked on one by one keep their names", route: "pdfengines/flatten",
			files: []upload{three, other}, status: 200, ctype: "application/zip", zip: []string{"pages_3.pdf", "other.pdf"}},
		{name: "output filename for one PDF", route: "pdfengines/flatten", files: []upload{three},
			header: http.Header{"Gotenberg-Output-Filename": {"foo"}}, status: 200, ctype: "application/pdf", filename: "foo.pdf"},
		{name: "output filename for a zip", route: "pdfengines/flatten", files: []upload{three, other},
			header: http.Header{"Gotenberg-Output-Filename": {"foo"}}, status: 200, ctype: "application/zip", filename: "foo.zip"},
		{name: "output filename given as a Windows path", route: "pdfengines/flatten", files: []upload{three},
			header: http.Header{"Gotenberg-Output-Filename": {`C:\Windows\Temp\foo`}}, status: 200, ctype: "application/pdf", filename: "foo.pdf"},
		{name: "output filename given as a path", route: "pdfengines/flatten", files: []upload{three},
			header: http.Header{"Gotenberg-Output-Filename": {"/tmp/foo"}}, status: 200, ctype: "application/pdf", filename: "foo.pdf"},
		{name: "an error is one sentence without a line feed", route: "pdfengines/encrypt", files: []upload{three},
			status: 400, ctype: plain, body: "Invalid form data: a 'userPassword' or 'ownerPassword' is required"},
		{name: "every missing field, then the missing files", route: "pdfengines/split", fields: map[string]string{"x": "y"},
			status: 400, ctype: plain, body: "Invalid form data: form field 'splitMode' is required\nform field 'splitSpan' is required\n" +
				"no form file found for extensions: [.pdf]"},
		{name: "no file", route: "pdfengines/flatten", fields: map[string]string{"x": "y"},
			status: 400, ctype: plain, body: "Invalid form data: no form file found for extensions: [.pdf]"},
		{name: "a field required, and no file", route: "pdfengines/metadata/write", fields: map[string]string{"x": "y"},
			status: 400, ctype: plain, body: "Invalid form data: form field 'metadata' is required\nno form file found for extensions: [.pdf]"},
		{name: "the LibreOffice route: shared fields, the missing files, then its own fields", route: "libreoffice/convert",
			fields: map[string]string{"landscape": "foo", "quality": "-1", "rotateAngle": "45", "initialView": "5", "flatten": "foo"},
			status: 400, ctype: plain, body: "Invalid form data: form field 'rotateAngle' is invalid (got '45', resulting to wrong value, expected 90, 180, or 270)\n" +
				"no form file found for extensions: " + fmt.Sprint(sniff.Supported()) + "\n" +
				`form field 'landscape' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)` + "\n" +
				"form field 'initialView' is invalid (got '5', resulting to value is not 0, 1 or 2)\n" +
				"form field 'quality' is invalid (got '-1', resulting to value is inferior to 1)\n" +
				`form field 'flatten' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)`},
		{name: "merge: shared fields, the missing files, then flatten", route: "pdfengines/merge",
			fields: map[string]string{"flatten": "foo", "metadata": "foo"},
			status: 400, ctype: plain, body: "Invalid form data: form field 'metadata' is invalid (got 'foo', resulting to unmarshal metadata: invalid character 'o' in literal false (expecting 'a'))\n" +
				"no form file found for extensions: [.pdf]\n" +
				`form field 'flatten' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)`},
		{name: "a boolean, in the parser's words", route: "pdfengines/merge", files: []upload{three, other}, fields: map[string]string{"pdfua": "foo"},
			status: 400, ctype: plain, body: `Invalid form data: form field 'pdfua' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)`},
		{name: "an integer, in the parser's words", route: "pdfengines/split", files: []upload{three},
			fields: map[string]string{"splitMode": "intervals", "splitSpan": "foo"}, status: 400, ctype: plain,
			body: `Invalid form data: form field 'splitSpan' is invalid (got 'foo', resulting to strconv.Atoi: parsing "foo": invalid syntax)`},
		{name: "JSON, in the parser's words", route: "pdfengines/metadata/write", files: []upload{three}, fields: map[string]string{"metadata": "foo"},
			status: 400, ctype: plain,
			body: "Invalid form data: form field 'metadata' is invalid (got 'foo', resulting to unmarshal metadata: invalid character 'o' in literal false (expecting 'a'))"},
		{name: "a split mode", route: "pdfengines/split", files: []upload{three}, fields: map[string]string{"splitMode": "foo", "splitSpan": "2"},
			status: 400, ctype: plain,
			body: "Invalid form data: form field 'splitMode' is invalid (got 'foo', resulting to wrong value, expected either 'intervals' or 'pages')"},
		{name: "pages to split by", route: "pdfengines/split", files: []upload{three}, fields: map[string]string{"splitMode": "pages", "splitSpan": "foo"},
			status: 400, ctype: plain,
			body: "The requested split mode is not supported, or no PDF engine could process it. Valid modes: 'intervals', 'pages'."},
		{name: "a PDF format on a pdfengines route", route: "pdfengines/convert", files: []upload{three}, fields: map[string]string{"pdfa": "foo"},
			status: 400, ctype: plain,
			body: "The requested PDF format is not supported, or no PDF engine could apply it. Valid formats include PDF/A-1b, PDF/A-2b, PDF/A-3b, and PDF/UA."},
		{name: "a document that needs a password", route: "libreoffice/convert", files: []upload{protected},
			status: 400, ctype: plain,
			body: "The document 'protected.docx' is password-protected. Provide its password in the 'password' form field."},
		{name: "a password for a document without one", route: "libreoffice/convert", files: []upload{a}, fields: map[string]string{"password": "foo"},
			status: 400, ctype: plain, body: "The document 'a.txt' is not password-protected. Remove the 'password' form field."},
		{name: "a password for a DOCX without one", route: "libreoffice/convert", files: []upload{docx}, fields: map[string]string{"password": "foo"},
			status: 400, ctype: plain, body: "The document 'sample_3.docx' is not password-protected. Remove the 'password' form field."},
		{name: "a wrong password", route: "libreoffice/convert", files: []upload{tika}, fields: map[string]string{"password": "bar"},
			status: 400, ctype: plain, body: "The password for the document 'tika.docx' is incorrect. Check the 'password' form field."},
		{name: "page ranges LibreOffice cannot apply", route: "libreoffice/convert", files: []upload{a}, fields: map[string]string{"nativePageRanges": "foo"},
			status: 400, ctype: plain,
			body: "LibreOffice could not apply the page ranges 'foo' to the document 'a.txt'. Check the 'nativePageRanges' form field; valid values look like '1-4', '2' or '1,3,5-7'."},
		{name: "a PDF format on the LibreOffice route", route: "libreoffice/convert", files: []upload{a}, fields: map[string]string{"pdfa": "foo"},
			status: 400, ctype: plain,
			body: "The PDF format 'foo' is not supported. Valid formats include PDF/A-1b, PDF/A-2b, PDF/A-3b, and PDF/UA."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.check(t, ts.URL) })
	}
	t.Run("metadata in ExifTool's JSON", func(t *testing.T) {
		resp := post(t, ts.URL+"/forms/pdfengines/metadata/write", []upload{three}, map[string]string{"metadata": `{"Author":"Ann",` +
			`"Keywords":["first","second"],"CreationDate":"2006-09-18T16:27:50-04:00","Trapped":"Unknown"}`},
			http.Header{"Gotenberg-Output-Filename": {"foo"}})
		written := upload{"files", "foo.pdf", body(t, resp)}
		c := replyCase{route: "pdfengines/metadata/read", files: []upload{written}, status: 200, ctype: "application/json"}
		b := c.check(t, ts.URL)
		var got map[string]map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("got %s: %v", b, err)
		}
		want := map[string]any{"Author": "Ann", "Keywords": []any{"first", "second"}, "CreateDate": "2006:09:18 16:27:50-04:00",
			"Trapped": "Unknown", "PageCount": 3.0}
		for k, v := range want {
			if !reflect.DeepEqual(got["foo.pdf"][k], v) {
				t.Errorf("got %s %#v, want %#v (in %s)", k, got["foo.pdf"][k], v, b)
			}
		}
		if v, ok := got["foo.pdf"]["PDFVersion"].(float64); !ok || v < 1 {
			t.Errorf("got PDFVersion %#v, want a number", got["foo.pdf"]["PDFVersion"])
		}
	})
}

// check sends the case's request, compares the reply and returns its
// body.
func (c replyCase) check(t *testing.T, base string) []byte {
	t.Helper()
	resp := post(t, base+"/forms/"+c.route, c.files, c.fields, c.header)
	b := body(t, resp)
	if resp.StatusCode != c.status {
		t.Fatalf("got status %d, want %d (%.300q)", resp.StatusCode, c.status, b)
	}
	if got := resp.Header.Get("Content-Type"); got != c.ctype {
		t.Errorf("got Content-Type %q, want %q", got, c.ctype)
	}
	if c.body != "" && string(b) != c.body {
		t.Errorf("got body %q, want %q", b, c.body)
	}
	if c.filename != "" {
		_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
		if got := params["filename"]; err != nil || got != c.filename {
			t.Errorf("got Content-Disposition %q (%v), want the file name %q", resp.Header.Get("Content-Disposition"), err, c.filename)
		}
	}
	if c.zip != nil {
		if names, _ := zipEntries(t, b); !slices.Equal(names, c.zip) {
			t.Errorf("got zip entries %q, want %q", names, c.zip)
		}
	}
	return b
}
