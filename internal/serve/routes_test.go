package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"calq/convert/pdf"
	"calq/internal/serve/jobs"
	"calq/internal/tooltest"
)

// TestLibreOfficeRoute: Gotenberg's conversion route, each option
// visible in the PDF it gives.
func TestLibreOfficeRoute(t *testing.T) {
	ts := newTestServer(t, nil)
	url := ts.URL + "/forms/libreoffice/convert"
	docx := fileUpload(t, filepath.Join(repoTestdata, "convert", "sample_3.docx"))
	long := upload{"files", "long.txt", longText(200)}
	short := upload{"files", "b.txt", []byte("second\n")}
	first := upload{"document", "a.txt", []byte("first\n")} // any field name counts

	t.Run("one file", func(t *testing.T) {
		resp := post(t, url, []upload{docx}, nil, http.Header{"Gotenberg-Trace": {"trace-1"}})
		b := body(t, resp)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pdf" {
			t.Fatalf("status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		if got := resp.Header.Get("Gotenberg-Trace"); got != "trace-1" {
			t.Errorf("Gotenberg-Trace = %q, want it echoed", got)
		}
		if got := resp.Header.Get("Content-Disposition"); got != `attachment; filename="sample_3.pdf"` {
			t.Errorf("Content-Disposition = %q", got)
		}
		pdfFile(t, b)
	})
	t.Run("several files make a zip in file name order", func(t *testing.T) {
		resp := post(t, url, []upload{short, first}, map[string]string{"someFieldCalqDoesNotKnow": "x"}, nil)
		b := body(t, resp)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" {
			t.Fatalf("status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		names, content := zipEntries(t, b)
		if !slices.Equal(names, []string{"a.txt.pdf", "b.txt.pdf"}) { // Gotenberg's names
			t.Errorf("zip entries = %v, want [a.txt.pdf b.txt.pdf]", names)
		}
		for _, n := range names {
			pdfFile(t, content[n])
		}
	})
	t.Run("merge in file name order", func(t *testing.T) {
		resp := post(t, url, []upload{long, first}, map[string]string{"merge": "true"},
			http.Header{"Gotenberg-Output-Filename": {"../merged report"}})
		b := body(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
		if got := resp.Header.Get("Content-Disposition"); got != `attachment; filename="merged report.pdf"` {
			t.Errorf("Content-Disposition = %q", got)
		}
		p := pdfFile(t, b)
		n := pages(t, p)
		if n < 3 {
			t.Errorf("merged pages = %d, want a.txt's 1 and long.txt's several", n)
		}
		text, err := pdf.Text(p, "")
		if err != nil {
			t.Fatal(err)
		}
		if i, j := strings.Index(text, "first"), strings.Index(text, "Line 1 of"); i < 0 || j < 0 || i > j {
			t.Errorf("merge order: a.txt at %d, long.txt at %d; want a.txt first", i, j)
		}
	})
	t.Run("nativePageRanges", func(t *testing.T) {
		resp := post(t, url, []upload{long}, map[string]string{"nativePageRanges": "2-3"}, nil)
		b := body(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
		if n := pages(t, pdfFile(t, b)); n != 2 {
			t.Errorf("pages = %d, want 2", n)
		}
	})
	t.Run("landscape", func(t *testing.T) {
		resp := post(t, url, []upload{first}, map[string]string{"landscape": "true"}, nil)
		b := body(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
		dims, err := api.PageDimsFile(pdfFile(t, b))
		if err != nil || len(dims) == 0 || dims[0].Width <= dims[0].Height {
			t.Errorf("page size %v, %v: want wider than tall", dims, err)
		}
	})
	t.Run("pdfa", func(t *testing.T) {
		resp := post(t, url, []upload{first}, map[string]string{"pdfa": "PDF/A-2b"}, nil)
		b := body(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
		c, err := pdf.PDFA(context.Background(), pdfFile(t, b))
		if err != nil || c.Part != 2 {
			t.Errorf("PDF/A = %+v, %v; want part 2", c, err)
		}
	})
	t.Run("userPassword encrypts", func(t *testing.T) {
		resp := post(t, url, []upload{first}, map[string]string{"userPassword": "open-sesame", "ownerPassword": "owner-pw"}, nil)
		b := body(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
		p := pdfFile(t, b)
		qpdf := tooltest.Require(t, "qpdf")
		// qpdf --requires-password exits 0 when a password is needed.
		if err := exec.Command(qpdf, "--requires-password", p).Run(); err != nil {
			t.Errorf("qpdf --requires-password: %v, want exit 0", err)
		}
		if err := exec.Command(qpdf, "--password=open-sesame", "--check", p).Run(); err != nil {
			t.Errorf("qpdf --check with the user password: %v", err)
		}
	})
	for _, c := range []struct {
		name   string
		files  []upload
		fields map[string]string
		ctype  string
		status int
		says   string
	}{
		{"bad quality", []upload{first}, map[string]string{"quality": "101"}, "", 400, "'quality'"},
		{"bad pdfa", []upload{first}, map[string]string{"pdfa": "PDF/A-4z"}, "", 400, "The PDF format 'PDF/A-4z' is not supported"},
		{"no file", nil, nil, "", 400, "no form file"},
		{"unsupported file", []upload{{"files", "x.exe", []byte("MZ")}}, nil, "", 400, "x.exe"},
		{"not multipart", nil, nil, "application/json", 415, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var resp *http.Response
			if c.ctype != "" {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader("{}"))
				req.Header.Set("Content-Type", c.ctype)
				var err error
				if resp, err = http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				}
			} else {
				resp = post(t, url, c.files, c.fields, nil)
			}
			b := string(body(t, resp))
			if resp.StatusCode != c.status || !strings.Contains(b, c.says) {
				t.Errorf("status %d %q, want %d saying %q", resp.StatusCode, b, c.status, c.says)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("error Content-Type = %q, want text/plain", ct)
			}
			if strings.Count(strings.TrimSpace(b), "\n") > 0 {
				t.Errorf("error is not one line: %q", b)
			}
		})
	}
}

// TestPDFEnginesRoutes: what pdfcpu does for Gotenberg's PDF routes.
func TestPDFEnginesRoutes(t *testing.T) {
	ts := newTestServer(t, nil)
	three := fileUpload(t, filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	route := func(r string) string { return ts.URL + "/forms/pdfengines/" + r }

	resp := post(t, route("merge"), []upload{three, {"files", "again.pdf", three.content}}, nil, nil)
	if b := body(t, resp); resp.StatusCode != 200 || pages(t, pdfFile(t, b)) != 6 {
		t.Errorf("merge: status %d, want 200 and 6 pages", resp.StatusCode)
	}

	resp = post(t, route("split"), []upload{three}, map[string]string{"splitMode": "intervals", "splitSpan": "1"}, nil)
	b := body(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("split: %d %s", resp.StatusCode, b)
	}
	names, content := zipEntries(t, b)
	if len(names) != 3 {
		t.Errorf("split into %v, want 3 files", names)
	}
	for _, n := range names {
		if got := pages(t, pdfFile(t, content[n])); got != 1 {
			t.Errorf("%s: %d pages, want 1", n, got)
		}
	}

	resp = post(t, route("metadata/write"), []upload{three},
		map[string]string{"metadata": `{"Author":"Ann Example","Title":"Written","Keywords":["a","b"]}`}, nil)
	b = body(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("metadata/write: %d %s", resp.StatusCode, b)
	}
	written := upload{"files", "written.pdf", b}
	resp = post(t, route("metadata/read"), []upload{written}, nil, nil)
	b = body(t, resp)
	var meta map[string]map[string]any
	if err := json.Unmarshal(b, &meta); err != nil || meta["written.pdf"]["Author"] != "Ann Example" ||
		!reflect.DeepEqual(meta["written.pdf"]["Keywords"], []any{"a", "b"}) {
		t.Errorf("metadata/read = %s (%v), want Author and Keywords back", b, err)
	}

	resp = post(t, route("rotate"), []upload{three}, map[string]string{"rotateAngle": "90"}, nil)
	b = body(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("rotate: %d %s", resp.StatusCode, b)
	}
	dims, _ := api.PageDimsFile(pdfFile(t, b))
	orig, _ := api.PageDimsFile(pdfFile(t, three.content))
	if len(dims) == 0 || len(orig) == 0 || (dims[0].Width > dims[0].Height) == (orig[0].Width > orig[0].Height) {
		t.Errorf("rotate 90: page %v, was %v; want turned", dims, orig)
	}

	resp = post(t, route("encrypt"), []upload{three}, map[string]string{"userPassword": "pw-user"}, nil)
	b = body(t, resp)
	if _, err := pdf.Inspect(pdfFile(t, b), ""); resp.StatusCode != 200 || err == nil {
		t.Errorf("encrypt: status %d; opening without a password: %v, want refused", resp.StatusCode, err)
	}

	resp = post(t, route("convert"), []upload{three}, map[string]string{"pdfa": "PDF/A-1b"}, nil)
	b = body(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("convert: %d %s", resp.StatusCode, b)
	}
	if c, err := pdf.PDFA(context.Background(), pdfFile(t, b)); err != nil || c.Part != 1 {
		t.Errorf("convert to PDF/A-1b: %+v, %v", c, err)
	}

	resp = post(t, route("merge"), []upload{{"files", "x.docx", []byte("PK")}}, nil, nil)
	if b := string(body(t, resp)); resp.StatusCode != 400 || !strings.Contains(b, "x.docx") {
		t.Errorf("merge of a docx: %d %q, want 400 naming it", resp.StatusCode, b)
	}
	resp = post(t, ts.URL+"/forms/chromium/convert/url", nil, map[string]string{"url": "http://example.com"}, nil)
	if b := string(body(t, resp)); resp.StatusCode != 503 || !strings.Contains(b, "Chromium is not installed") {
		t.Errorf("chromium route without a pool: %d %q, want 503 saying Chromium is not installed", resp.StatusCode, b)
	}
}

// TestPasswordsStayOut: the password that opens a source and those that
// encrypt a result do their work, and are in neither the journal nor the
// job's directory afterwards, after a synchronous request or a job.
func TestPasswordsStayOut(t *testing.T) {
	ts := newTestServer(t, nil)
	protected := fileUpload(t, filepath.Join(repoTestdata, "convert", "testWORD_protected_passtika.docx"))
	protected.name = "protected.docx" // its own name holds the password
	fields := map[string]string{"password": "tika", "userPassword": "user-pw-4711", "ownerPassword": "owner-pw-4711"}
	resp := post(t, ts.URL+"/forms/libreoffice/convert", []upload{protected}, fields, nil)
	b := body(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if _, err := pdf.Inspect(pdfFile(t, b), "user-pw-4711"); err != nil {
		t.Errorf("the PDF does not open with its user password: %v", err)
	}
	resp = post(t, ts.URL+"/jobs", []upload{protected}, fields, nil)
	var v jobView
	json.Unmarshal(body(t, resp), &v)
	resp = get(t, ts.URL+"/jobs/"+v.ID+"?wait=60s", "")
	json.Unmarshal(body(t, resp), &v)
	if v.State != jobs.Done {
		t.Fatalf("job: %+v", v)
	}
	resp = post(t, ts.URL+"/forms/libreoffice/convert", []upload{protected}, nil, nil)
	if b := string(body(t, resp)); resp.StatusCode != 400 {
		t.Errorf("without the password: %d %q, want 400", resp.StatusCode, b)
	}
	files, _ := filepath.Glob(ts.DB + "*")
	filepath.WalkDir(ts.Data, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, pw := range []string{"tika", "user-pw-4711", "owner-pw-4711"} {
			if bytes.Contains(b, []byte(pw)) {
				t.Errorf("%s holds the password %q", f, pw)
			}
		}
	}
}
