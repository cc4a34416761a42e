package browsertest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"calq/internal/browsertest"
)

const formPage = `<!doctype html><title>form</title>
<form method="post" action="/upload" enctype="multipart/form-data">
<input name="note" id="note">
<input type="file" name="files" id="files" multiple>
<button id="send">Send</button>
</form>`

const alertPage = `<!doctype html><title>alert</title><p id="after">after</p><script>alert("xss 1")</script>`

const drawPage = `<!doctype html><title>draw</title><style>body{margin:0} #box{width:200px;height:100px;background:#036}</style>
<div id="box"></div><script>console.info("drawn", 1)</script>`

// uploads records what the test server's /upload received.
type uploads struct {
	mu    sync.Mutex
	note  string
	files map[string]string // name → content
}

func (u *uploads) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.note = r.FormValue("note")
	u.files = map[string]string{}
	for _, fh := range r.MultipartForm.File["files"] {
		f, err := fh.Open()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		u.files[fh.Filename] = string(b)
	}
	fmt.Fprintf(w, `<!doctype html><p id="result">received %d files</p>`, len(u.files))
}

func server(t *testing.T, up *uploads) *httptest.Server {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, body)
		}
	}
	mux.Handle("GET /form", page(formPage))
	mux.Handle("GET /alert", page(alertPage))
	mux.Handle("GET /draw", page(drawPage))
	mux.Handle("POST /upload", up)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func TestBrowser(t *testing.T) {
	b := browsertest.New(t)
	up := &uploads{}
	ts := server(t, up)

	t.Run("form with two files", func(t *testing.T) {
		ctx := b.Tab(t)
		dir := t.TempDir()
		var paths []string
		for name, content := range map[string]string{"a.txt": "first file", "b.odt": "second file"} {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		if status, err := browsertest.Navigate(ctx, ts.URL+"/form"); err != nil || status != 200 {
			t.Fatalf("Navigate: status %d, %v", status, err)
		}
		if err := browsertest.Fill(ctx, "#note", "héllo <world>"); err != nil {
			t.Fatal(err)
		}
		if err := browsertest.SetFiles(ctx, "#files", paths...); err != nil {
			t.Fatal(err)
		}
		if status, err := browsertest.ClickNavigate(ctx, "#send"); err != nil || status != 200 {
			t.Fatalf("ClickNavigate: status %d, %v", status, err)
		}
		if err := browsertest.WaitText(ctx, "#result", "received 2 files"); err != nil {
			t.Fatal(err)
		}
		up.mu.Lock()
		defer up.mu.Unlock()
		if up.note != "héllo <world>" {
			t.Errorf("server got note %q, want %q", up.note, "héllo <world>")
		}
		want := map[string]string{"a.txt": "first file", "b.odt": "second file"}
		if len(up.files) != len(want) || up.files["a.txt"] != want["a.txt"] || up.files["b.odt"] != want["b.odt"] {
			t.Errorf("server got files %v, want %v", up.files, want)
		}
	})

	t.Run("alert is counted and dismissed", func(t *testing.T) {
		ctx := b.Tab(t)
		dialogs := browsertest.Dialogs(t, ctx)
		if _, err := browsertest.Navigate(ctx, ts.URL+"/alert"); err != nil {
			t.Fatal(err)
		}
		// The page's parser waited for the dialog, so the text after
		// it shows only once the dialog was dismissed.
		if got, err := browsertest.Text(ctx, "#after"); err != nil || got != "after" {
			t.Fatalf("Text(#after) = %q, %v; want %q", got, err, "after")
		}
		if got, want := dialogs.Messages(), []string{"alert: xss 1"}; !slices.Equal(got, want) {
			t.Errorf("dialogs %q, want %q", got, want)
		}
	})

	t.Run("no dialog on a quiet page", func(t *testing.T) {
		ctx := b.Tab(t)
		dialogs := browsertest.Dialogs(t, ctx)
		if _, err := browsertest.Navigate(ctx, ts.URL+"/form"); err != nil {
			t.Fatal(err)
		}
		if n := dialogs.Count(); n != 0 {
			t.Errorf("Count() = %d, want 0", n)
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		ctx := b.Tab(t)
		console := browsertest.Console(t, ctx)
		if _, err := browsertest.Navigate(ctx, ts.URL+"/draw"); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "shot.png")
		if err := browsertest.Screenshot(ctx, path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ink, err := browsertest.MeasureInk(data)
		if err != nil {
			t.Fatal(err)
		}
		if ink.Size.X != 1280 || ink.Size.Y != 800 {
			t.Errorf("screenshot is %v, want 1280×800", ink.Size)
		}
		// The box is 200×100 CSS pixels on a white page.
		if ink.Drawn != 200*100 {
			t.Errorf("screenshot has %d drawn pixels, want %d (the box)", ink.Drawn, 200*100)
		}
		box, err := browsertest.ElementPNG(ctx, "#box")
		if err != nil {
			t.Fatal(err)
		}
		if ink, err := browsertest.MeasureInk(box); err != nil || ink.Size.X != 200 || ink.Size.Y != 100 || ink.Drawn != 200*100 {
			t.Errorf("ElementPNG(#box): %+v, %v; want 200×100 all drawn", ink, err)
		}
		if got := console.Messages(); !slices.Contains(got, "info: drawn 1") {
			t.Errorf("console %q, want it to hold %q", got, "info: drawn 1")
		}
	})

	t.Run("attributes and eval", func(t *testing.T) {
		ctx := b.Tab(t)
		if _, err := browsertest.Navigate(ctx, ts.URL+"/form"); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := browsertest.Attribute(ctx, "#files", "type"); err != nil || !ok || v != "file" {
			t.Errorf("Attribute(#files, type) = %q, %v, %v; want file, true", v, ok, err)
		}
		if _, ok, err := browsertest.Attribute(ctx, "#files", "data-none"); err != nil || ok {
			t.Errorf("Attribute(#files, data-none): exists %v, %v; want false", ok, err)
		}
		if _, err := browsertest.Eval[any](ctx, `setTimeout(() => document.body.dataset.late = "yes", 100)`); err != nil {
			t.Fatal(err)
		}
		if v, err := browsertest.WaitAttribute(ctx, "body", "data-late"); err != nil || v != "yes" {
			t.Errorf("WaitAttribute(body, data-late) = %q, %v; want yes", v, err)
		}
		title, err := browsertest.Eval[string](ctx, `document.title`)
		if err != nil || !strings.EqualFold(title, "form") {
			t.Errorf("Eval(document.title) = %q, %v; want form", title, err)
		}
	})
}
