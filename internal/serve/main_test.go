package serve

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"calq/convert/contacts"
	"calq/convert/lo"
	"calq/internal/proc"
	"calq/internal/serve/jobs"
	"calq/internal/serve/profiles"
	"calq/internal/serve/users"
	"calq/internal/tooltest"
	"calq/sched/journal"
)

func TestMain(m *testing.M) {
	proc.MaybeRunGuard()
	code := m.Run()
	if testPool != nil {
		testPool.Close()
	}
	os.Exit(code)
}

// testPool is one warm pool for the package's tests: a server's pool is
// shared between its requests, and so between these tests.
var (
	poolOnce sync.Once
	testPool *lo.Pool
	poolErr  error
)

func pool(t *testing.T) *lo.Pool {
	t.Helper()
	tooltest.Require(t, "soffice")
	poolOnce.Do(func() {
		testPool, poolErr = lo.New(context.Background(), lo.Options{Instances: 2, StateDir: ""})
	})
	if poolErr != nil {
		t.Fatal(poolErr)
	}
	return testPool
}

// testServer is a Server behind httptest, with its journal and users.
type testServer struct {
	*Server
	URL   string
	Users *users.Store
	Jobs  *jobs.Store
	Data  string
	DB    string // the journal's file
}

func newTestServer(t *testing.T, mod func(*Options)) *testServer {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "calq.db")
	j, err := journal.Open(context.Background(), db, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	us, err := users.Open(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jobs.Open(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	book, err := contacts.Open(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := profiles.Open(filepath.Join(dir, "profiles"))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Data: filepath.Join(dir, "data"), Jobs: js, Pool: pool(t), Users: us, Journal: j, History: j,
		Contacts: BookContacts{Book: book}, Profiles: ps}
	if mod != nil {
		mod(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		s.Stop(0)
		j.Close()
	})
	return &testServer{Server: s, URL: hs.URL, Users: us, Jobs: js, Data: o.Data, DB: db}
}

// upload is a file part of a form.
type upload struct {
	field, name string
	content     []byte
}

func fileUpload(t *testing.T, path string) upload {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return upload{"files", filepath.Base(path), b}
}

// post sends a multipart form to path.
func post(t *testing.T, url string, files []upload, fields map[string]string, header http.Header) *http.Response {
	t.Helper()
	body, ctype := multipartBody(t, files, fields)
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// multipartBody is a multipart form of fields and files, and its
// content type.
func multipartBody(t *testing.T, files []upload, fields map[string]string) (io.Reader, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f.field, f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.content)
	}
	mw.Close()
	return &body, mw.FormDataContentType()
}

// body reads and closes a reply's body.
func body(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pdfFile writes b to a temporary file and checks that it is a PDF.
func pdfFile(t *testing.T, b []byte) string {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.200q", b)
	}
	p := filepath.Join(t.TempDir(), "out.pdf")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func pages(t *testing.T, path string) int {
	t.Helper()
	n, err := api.PageCountFile(path)
	if err != nil {
		t.Fatalf("page count of %s: %v", path, err)
	}
	return n
}

// zipEntries lists a zip's entries, in order, and their contents.
func zipEntries(t *testing.T, b []byte) ([]string, map[string][]byte) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip: %v (%.200q)", err, b)
	}
	var names []string
	content := map[string][]byte{}
	for _, f := range zr.File {
		names = append(names, f.Name)
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		content[f.Name], _ = io.ReadAll(r)
		r.Close()
	}
	return names, content
}

// longText is a plain-text document of several pages.
func longText(lines int) []byte {
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "Line %d of a document long enough to need several pages.\n", i+1)
	}
	return []byte(b.String())
}

const repoTestdata = "../../testdata"
