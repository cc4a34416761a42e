package download

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"calq/internal/serve/form"
	"calq/internal/serve/webhook"
)

// origin is a real HTTP server on loopback whose routes the tests name,
// counting the requests it gets and keeping the last X-Foo it saw.
type origin struct {
	*httptest.Server
	hits atomic.Int32
	foo  atomic.Value
}

func newOrigin(t *testing.T) *origin {
	t.Helper()
	o := &origin{}
	block := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/named", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="../../report 1.docx"`)
		fmt.Fprint(w, "named body")
	})
	mux.HandleFunc("/static/page_2.pdf", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "%PDF-1.4 not really") })
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 2000)) })
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		for range 20 {
			w.Write(make([]byte, 100))
			w.(http.Flusher).Flush() // no Content-Length: the size is only known by reading
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("start"))
		w.(http.Flusher).Flush()
		select {
		case <-block:
		case <-r.Context().Done():
		}
	})
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		o.foo.Store(r.Header.Get("X-Foo"))
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(block); o.Close() })
	return o
}

func allow(t *testing.T, entries ...string) *webhook.Policy {
	t.Helper()
	p, err := webhook.NewPolicy(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFetch(t *testing.T) {
	src := newOrigin(t)
	other := newOrigin(t)
	u, _ := url.Parse(src.URL)
	loopback := allow(t, "127.0.0.0/8")
	tests := []struct {
		name       string
		entries    []Entry
		policy     *webhook.Policy
		lim        form.Limits
		timeout    time.Duration
		want       []form.File // Name, Field and Size; when no error
		wantStatus int
		wantMsg    string
	}{
		{name: "named by the reply, path dropped", policy: loopback,
			entries: []Entry{{URL: src.URL + "/named", ExtraHTTPHeaders: map[string]string{"X-Foo": "bar"}}},
			want:    []form.File{{Name: "report 1.docx", Field: "files", Size: 10}}},
		{name: "named by the URL, routed by field", policy: loopback,
			entries: []Entry{{URL: src.URL + "/static/page_2.pdf?x=1", Embedded: true}, {URL: src.URL + "/named", Field: "watermark"}},
			want:    []form.File{{Name: "page_2.pdf", Field: "embeds", Size: 19}, {Name: "report 1.docx", Field: "watermark", Size: 10}}},
		{name: "loopback refused by default",
			entries:    []Entry{{URL: src.URL + "/named"}},
			wantStatus: http.StatusForbidden, wantMsg: "is a private, loopback or reserved address"},
		{name: "localhost refused by default",
			entries:    []Entry{{URL: "http://localhost:" + u.Port() + "/named"}},
			wantStatus: http.StatusForbidden, wantMsg: "/named: localhost is "},
		{name: "redirect to a refused port", policy: allow(t, "127.0.0.1:"+u.Port()),
			entries:    []Entry{{URL: src.URL + "/redirect?to=" + url.QueryEscape(other.URL+"/named")}},
			wantStatus: http.StatusForbidden},
		{name: "not found", policy: loopback,
			entries:    []Entry{{URL: src.URL + "/missing"}},
			wantStatus: http.StatusBadRequest, wantMsg: "Unable to download file from '" + src.URL + "/missing': got status: '404 Not Found'"},
		{name: "declared too large", policy: loopback, lim: form.Limits{MaxFile: 1000},
			entries:    []Entry{{URL: src.URL + "/big"}},
			wantStatus: http.StatusRequestEntityTooLarge, wantMsg: "exceeds the size limit of 1000 bytes"},
		{name: "streamed too large", policy: loopback, lim: form.Limits{MaxFile: 1000},
			entries:    []Entry{{URL: src.URL + "/named"}, {URL: src.URL + "/chunked"}},
			wantStatus: http.StatusRequestEntityTooLarge, wantMsg: "exceeds the size limit of 1000 bytes"},
		{name: "all together too large", policy: loopback, lim: form.Limits{MaxBody: 3000},
			entries:    []Entry{{URL: src.URL + "/big"}, {URL: src.URL + "/chunked"}},
			wantStatus: http.StatusRequestEntityTooLarge, wantMsg: "exceed the size limit of 3000 bytes"},
		{name: "too many", policy: loopback, lim: form.Limits{MaxFiles: 2},
			entries:    []Entry{{URL: src.URL + "/named"}, {URL: src.URL + "/named"}, {URL: src.URL + "/named"}},
			wantStatus: http.StatusRequestEntityTooLarge, wantMsg: "The request has more than 2 files."},
		{name: "slow", policy: loopback, timeout: 50 * time.Millisecond,
			entries:    []Entry{{URL: src.URL + "/named"}, {URL: src.URL + "/slow"}},
			wantStatus: http.StatusBadRequest, wantMsg: "context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			f := &form.Form{}
			src.hits.Store(0)
			src.foo.Store("")
			err := Fetch(context.Background(), f, dir, tt.entries, Options{Policy: tt.policy, Limits: tt.lim, Timeout: tt.timeout})
			if tt.wantStatus != 0 {
				var fe *form.Error
				if !errors.As(err, &fe) || fe.Status != tt.wantStatus || !strings.Contains(fe.Msg, tt.wantMsg) {
					t.Fatalf("got %v, want %d saying %q", err, tt.wantStatus, tt.wantMsg)
				}
				if left, _ := os.ReadDir(dir); len(left) != 0 || len(f.Files) != 0 {
					t.Errorf("after the error, got %d files in dir and %d in the form, want none", len(left), len(f.Files))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Files) != len(tt.want) {
				t.Fatalf("got %d files, want %d", len(f.Files), len(tt.want))
			}
			for i, w := range tt.want {
				g := f.Files[i]
				if g.Name != w.Name || g.Field != w.Field || g.Size != w.Size {
					t.Errorf("file %d: got %q %q %d bytes, want %q %q %d bytes", i, g.Name, g.Field, g.Size, w.Name, w.Field, w.Size)
				}
				if fi, err := os.Stat(g.Path); err != nil || fi.Size() != w.Size {
					t.Errorf("file %d on disk: got %v, want %d bytes", i, err, w.Size)
				}
			}
			if h := tt.entries[0].ExtraHTTPHeaders["X-Foo"]; h != "" && src.foo.Load() != h {
				t.Errorf("got X-Foo %q at the origin, want %q", src.foo.Load(), h)
			}
		})
	}
}

// TestFetchTooManyConnectsNowhere: a request over MaxFiles is refused
// before any download starts.
func TestFetchTooManyConnectsNowhere(t *testing.T) {
	src := newOrigin(t)
	f := &form.Form{Files: []form.File{{Name: "a.docx", Size: 1}}}
	err := Fetch(context.Background(), f, t.TempDir(), []Entry{{URL: src.URL + "/named"}}, Options{Policy: allow(t, "127.0.0.1"), Limits: form.Limits{MaxFiles: 1}})
	var fe *form.Error
	if !errors.As(err, &fe) || fe.Limit != form.LimitFiles {
		t.Fatalf("got %v, want the files limit", err)
	}
	if n := src.hits.Load(); n != 0 {
		t.Errorf("got %d requests at the origin, want 0", n)
	}
}

// TestFetchStoreFailure: a download the server cannot store (its
// directory is gone) is the server's error, not the client's.
func TestFetchStoreFailure(t *testing.T) {
	src := newOrigin(t)
	f := &form.Form{}
	err := Fetch(context.Background(), f, filepath.Join(t.TempDir(), "gone"), []Entry{{URL: src.URL + "/named"}}, Options{Policy: allow(t, "127.0.0.1")})
	var fe *form.Error
	if err == nil || errors.As(err, &fe) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v, want a plain error wrapping os.ErrNotExist", err)
	}
	if len(f.Files) != 0 {
		t.Errorf("got %d files in the form, want none", len(f.Files))
	}
}
