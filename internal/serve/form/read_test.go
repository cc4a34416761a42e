package form

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"calq/convert/pdf"
)

// part is one multipart part of a test request: a file when file is set.
type part struct {
	name, file, body string
	rawFile          bool   // write file unescaped into the header, as a hostile client may
	disp             string // the whole Content-Disposition, when set
}

// body builds a multipart body and its Content-Type.
func body(t testing.TB, parts ...part) (*bytes.Buffer, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		switch {
		case p.disp != "":
			h.Set("Content-Disposition", p.disp)
		case p.rawFile:
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, p.name, p.file))
		case p.file != "":
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.file))
		default:
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.name))
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(pw, p.body)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &b, w.FormDataContentType()
}

func request(t testing.TB, parts ...part) *http.Request {
	b, ct := body(t, parts...)
	r := httptest.NewRequest(http.MethodPost, "/forms/libreoffice/convert", b)
	r.Header.Set("Content-Type", ct)
	return r
}

// listing is every path under root, for before/after comparisons.
func listing(t *testing.T, root string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// reqDir is an empty directory for Read inside a parent holding one other
// file, so that tests can see whether anything leaked beside it.
func reqDir(t *testing.T) (parent, dir string) {
	parent = t.TempDir()
	dir = filepath.Join(parent, "req")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "other"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	return parent, dir
}

func TestReadFilesAndFields(t *testing.T) {
	_, dir := reqDir(t)
	r := request(t,
		part{name: "files", file: "b.DOCX", body: "bbb"},
		part{name: "landscape", body: "true"},
		part{name: "whatever", file: "a.odt", body: "aa"},
		part{name: "watermark", file: "logo.png", body: "png"},
		part{name: "landscape", body: "false"},
	)
	f, err := Read(r, dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Name: "a.odt", Path: filepath.Join(dir, "0002.odt"), Field: "whatever", Size: 2},
		{Name: "b.DOCX", Path: filepath.Join(dir, "0001.docx"), Field: "files", Size: 3},
		{Name: "logo.png", Path: filepath.Join(dir, "0003.png"), Field: "watermark", Size: 3},
	}
	if !slices.Equal(f.Files, want) {
		t.Errorf("Files = %+v, want %+v", f.Files, want)
	}
	if got := f.Inputs(); !slices.Equal(got, want[:2]) {
		t.Errorf("Inputs() = %+v, want %+v", got, want[:2])
	}
	for _, file := range want {
		b, err := os.ReadFile(file.Path)
		if err != nil || int64(len(b)) != file.Size {
			t.Errorf("%s holds %q (%v), want %d bytes", file.Path, b, err, file.Size)
		}
	}
	if got := f.Values("landscape"); !slices.Equal(got, []string{"true", "false"}) {
		t.Errorf("Values(landscape) = %q, want [true false]", got)
	}
	if err := f.Remove(); err != nil {
		t.Fatal(err)
	}
	if got := listing(t, dir); len(got) != 1 {
		t.Errorf("after Remove, dir holds %q, want nothing", got[1:])
	}
}

func TestReadHostileNames(t *testing.T) {
	for _, tc := range []struct {
		file, wantName, wantDisk string
	}{
		{"../../etc/passwd", "passwd", "0001"},
		{`..\..\Windows\evil.DOCX`, "evil.DOCX", "0001.docx"},
		{"/abs/path/x.pdf", "x.pdf", "0001.pdf"},
		{"..", "file", "0001"},
		{"dir/", "file", "0001"},
		{"", "file", "0001"},
		{"a\tb\u0085.pdf", "ab.pdf", "0001.pdf"},
		{"x.p-f", "x.p-f", "0001"},
		{"x.toolongext", "x.toolongext", "0001"},
		{"\xff\xfe.pdf", "\uFFFD.pdf", "0001.pdf"},
		{strings.Repeat("é", 300) + ".pdf", strings.Repeat("é", 125) + ".pdf", "0001.pdf"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			parent, dir := reqDir(t)
			before := listing(t, parent)
			f, err := Read(request(t, part{name: "files", file: tc.file, body: "x", rawFile: true}), dir, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Files) != 1 || f.Files[0].Name != tc.wantName || f.Files[0].Path != filepath.Join(dir, tc.wantDisk) {
				t.Fatalf("Files = %+v, want one named %q at %s", f.Files, tc.wantName, tc.wantDisk)
			}
			after := listing(t, parent)
			want := append(slices.Clone(before), filepath.Join(dir, tc.wantDisk))
			slices.Sort(want)
			if !slices.Equal(after, want) {
				t.Errorf("files after Read: %q, want %q", after, want)
			}
		})
	}
}

// noRead fails the test when the body is read.
type noRead struct{ t *testing.T }

func (n noRead) Read([]byte) (int, error) {
	n.t.Error("the body was read")
	return 0, io.EOF
}

func TestReadDeclaredLengthOverLimit(t *testing.T) {
	_, dir := reqDir(t)
	r := httptest.NewRequest(http.MethodPost, "/", noRead{t})
	r.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	r.ContentLength = 10 << 30
	_, err := Read(r, dir, Limits{MaxBody: 1 << 20})
	checkError(t, err, 413, "The request body exceeds the size limit of 1 MiB.")
}

func checkError(t *testing.T, err error, status int, msg string) {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want *Error %d %q", err, err, status, msg)
	}
	if fe.Status != status || fe.Msg != msg {
		t.Errorf("error = %d %q, want %d %q", fe.Status, fe.Msg, status, msg)
	}
}

func TestReadErrors(t *testing.T) {
	big := strings.Repeat("x", 2000)
	multi := func(parts ...part) func(t *testing.T) *http.Request {
		return func(t *testing.T) *http.Request { return request(t, parts...) }
	}
	raw := func(ct, b string, length int64) func(t *testing.T) *http.Request {
		return func(t *testing.T) *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(b))
			if ct != "" {
				r.Header.Set("Content-Type", ct)
			}
			r.ContentLength = length
			return r
		}
	}
	lim := Limits{MaxBody: 4096, MaxFile: 1000, MaxFiles: 2, MaxFields: 3, MaxFieldBytes: 100}
	pdfLim := &Limits{PDF: pdf.Limits{MaxPages: 2}}
	const pages3 = "%PDF-1.7\n1 0 obj << /Type /Page >> endobj 2 0 obj << /Type /Page >> endobj 3 0 obj << /Type /Page >> endobj"
	for _, tc := range []struct {
		name   string
		req    func(t *testing.T) *http.Request
		status int
		msg    string
		lim    *Limits
	}{
		{"not multipart", raw("application/json", "{}", 2), 415,
			"Invalid 'Content-Type' header value: want 'multipart/form-data'", nil},
		{"no content type", raw("", "x", 1), 415,
			"Invalid 'Content-Type' header value: want 'multipart/form-data'", nil},
		{"multipart/mixed", raw("multipart/mixed; boundary=x", "", 0), 415,
			"Invalid 'Content-Type' header value: want 'multipart/form-data'", nil},
		{"no boundary", raw("multipart/form-data", "x", 1), 415,
			"Invalid 'Content-Type' header value: no boundary", nil},
		{"too many files", multi(part{name: "f", file: "1.pdf"}, part{name: "f", file: "2.pdf"}, part{name: "f", file: "3.pdf"}), 413,
			"The request has more than 2 files.", nil},
		{"file over MaxFile", multi(part{name: "f", file: "1.pdf", body: "x"}, part{name: "f", file: "big.pdf", body: big}), 413,
			"The file 'big.pdf' exceeds the size limit of 1000 bytes.", nil},
		{"too many fields", multi(part{name: "a"}, part{name: "b"}, part{name: "c"}, part{name: "d"}), 413,
			"The request has more than 3 form fields.", nil},
		{"field too big", multi(part{name: "metadata", body: big[:95]}), 413,
			"Form field 'metadata' exceeds the size limit of 100 bytes.", nil},
		{"body over MaxBody, length unknown", func(t *testing.T) *http.Request {
			r := request(t, part{name: "f", file: "1.pdf", body: big}, part{name: "g", file: "2.pdf", body: big}, part{name: "h", body: big[:1000]})
			r.ContentLength = -1
			return r
		}, 413, "The request body exceeds the size limit of 4 KiB.", &Limits{MaxBody: 4096}},
		{"truncated body", func(t *testing.T) *http.Request {
			b, ct := body(t, part{name: "f", file: "1.pdf", body: "abc"})
			return raw(ct, b.String()[:b.Len()-10], int64(b.Len()-10))(t)
		}, 400, "Malformed body: it does not match the 'Content-Type' header boundaries.", nil},
		{"bad disposition", raw("multipart/form-data; boundary=x",
			"--x\r\nContent-Disposition: form-data; name=\"a\"; name=\"b\"\r\n\r\nv\r\n--x--\r\n", -1), 400,
			"Malformed body: a part's 'Content-Disposition' header is invalid.", nil},
		{"long field name", multi(part{name: strings.Repeat("n", 256)}), 400,
			"Malformed body: a part's field name is longer than 255 bytes.", nil},
		{"PDF over its page limit", multi(part{name: "f", file: "1.pdf", body: pages3}, part{name: "h", body: "x"}), 413,
			"The file '1.pdf' is refused: the PDF has 3 pages, over the limit of 2.", pdfLim},
		{"PDF under another name, over its page limit", multi(part{name: "f", file: "a.docx", body: pages3}), 413,
			"The file 'a.docx' is refused: the PDF has 3 pages, over the limit of 2.", pdfLim},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, dir := reqDir(t)
			before := listing(t, parent)
			l := lim
			if tc.lim != nil {
				l = *tc.lim
			}
			f, err := Read(tc.req(t), dir, l)
			if f != nil && len(f.Files) != 0 {
				t.Errorf("Read returned a form with %d files on error", len(f.Files))
			}
			checkError(t, err, tc.status, tc.msg)
			if after := listing(t, parent); !slices.Equal(after, before) {
				t.Errorf("files after a failed Read: %q, want %q", after, before)
			}
		})
	}
}

// A 1 MB header line is within the body limit: it is read, and what is
// kept of its file name is bounded.
func TestReadHugeHeaderLine(t *testing.T) {
	parent, dir := reqDir(t)
	before := listing(t, parent)
	name := strings.Repeat("a", 1<<20) + ".docx"
	f, err := Read(request(t, part{name: "files", file: name, body: "x"}), dir, Limits{MaxBody: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Files) != 1 || len(f.Files[0].Name) != 255 || !strings.HasSuffix(f.Files[0].Name, "a.docx") {
		t.Fatalf("Files = %d, name of %d bytes, want one of 255 bytes ending in a.docx", len(f.Files), len(f.Files[0].Name))
	}
	want := append(before, filepath.Join(dir, "0001.docx"))
	slices.Sort(want)
	if after := listing(t, parent); !slices.Equal(after, want) {
		t.Errorf("files after Read: %q, want %q", after, want)
	}

	// Over the body limit it is a 413, and nothing is left.
	_, err = Read(request(t, part{name: "files", file: name, body: "x"}), dir, Limits{MaxBody: 512 << 10})
	checkError(t, err, 413, "The request body exceeds the size limit of 512 KiB.")
}

func TestReadUnwritableDir(t *testing.T) {
	_, err := Read(request(t, part{name: "f", file: "a.pdf"}), filepath.Join(t.TempDir(), "missing"), Limits{})
	var fe *Error
	if err == nil || errors.As(err, &fe) {
		t.Fatalf("error %v, want a plain error (the server's fault)", err)
	}
}

func TestReadEncodedName(t *testing.T) {
	_, dir := reqDir(t)
	r := request(t, part{disp: `form-data; name="f"; filename*=UTF-8''..%2F%C3%A9t%01%C3%A9.PDF`, body: "x"})
	f, err := Read(r, dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Files) != 1 || f.Files[0].Name != "été.PDF" || f.Files[0].Path != filepath.Join(dir, "0001.pdf") {
		t.Errorf("Files = %+v, want one named été.PDF at 0001.pdf", f.Files)
	}
}

// TestReadKeepsFields: a refused form still gives the fields read before
// the refusal, and no file; the error names the bound passed and the file
// over it, for a page's own words.
func TestReadKeepsFields(t *testing.T) {
	_, dir := reqDir(t)
	r := request(t, part{name: "pdfa", body: "PDF/A-2b"}, part{name: "files", file: "small.txt", body: "x"},
		part{name: "files", file: "big.txt", body: strings.Repeat("x", 100)})
	f, err := Read(r, dir, Limits{MaxFile: 10})
	var fe *Error
	if !errors.As(err, &fe) || fe.Limit != LimitFile || fe.Name != "big.txt" {
		t.Fatalf("Read = %v, want a 413 of LimitFile naming big.txt", err)
	}
	if f == nil || f.Value("pdfa") != "PDF/A-2b" || len(f.Files) != 0 {
		t.Errorf("the form after the refusal: %+v, want the field pdfa and no file", f)
	}
}
