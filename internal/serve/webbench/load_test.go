package webbench

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// peer is a canned server: it reads each form, records its files' names
// and the most requests it had at once, and answers reply.
type peer struct {
	status         int
	reply          string
	mu             sync.Mutex
	forms          [][]string
	active, atOnce atomic.Int32
}

func (p *peer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := p.active.Add(1); n > p.atOnce.Load() {
		p.atOnce.Store(n) // racy max, enough for a bound
	}
	defer p.active.Add(-1)
	_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	mr := multipart.NewReader(r.Body, params["boundary"])
	var names []string
	for {
		part, err := mr.NextPart()
		if err != nil {
			break
		}
		names = append(names, part.FileName())
		io.Copy(io.Discard, part)
	}
	p.mu.Lock()
	p.forms = append(p.forms, names)
	p.mu.Unlock()
	w.WriteHeader(p.status)
	io.WriteString(w, p.reply)
}

func TestLoad(t *testing.T) {
	docs, err := Generate(t.TempDir(), 2)
	if err != nil {
		t.Fatal(err)
	}
	ld, err := newLoader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ld.close()
	if !ld.Separate {
		t.Errorf("the load ran in calq's process, want a helper process")
	}
	paths := [][]string{docs.HTML[0].Paths(), docs.Markdown.Paths()}
	tests := []struct {
		name           string
		status         int
		reply          string
		clients, count int
		wantErr        string
		wantMillis     int
	}{
		{"one client", 200, "%PDF-1.7 ...", 1, 5, "", 5},
		{"four clients", 200, "%PDF-1.7 ...", 4, 9, "", 0},
		{"not a PDF", 200, "<html>", 2, 3, `/forms/chromium/convert/html: 200 "<html>"`, 0},
		{"refused", 400, "Invalid form data", 1, 3, `: 400 "Invalid form data"`, 0},
		{"no clients", 200, "%PDF-", 0, 3, "load: 0 clients, want 1 to 64", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &peer{status: tt.status, reply: tt.reply}
			srv := httptest.NewServer(p)
			defer srv.Close()
			out, err := ld.run(context.Background(), Load{URL: srv.URL + htmlRoute, Docs: paths, Clients: tt.clients, Count: tt.count})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.forms) != tt.count {
				t.Errorf("got %d requests, want %d", len(p.forms), tt.count)
			}
			html, md := 0, 0
			for _, f := range p.forms {
				switch {
				case slices.Equal(f, []string{"index.html", "style.css", "logo.png"}):
					html++
				case slices.Equal(f, []string{"index.html", "style.css", "doc.md", "logo.png"}):
					md++
				default:
					t.Errorf("got a form of %v, want a document's files, index.html first", f)
				}
			}
			if html != (tt.count+1)/2 || md != tt.count/2 {
				t.Errorf("got %d HTML and %d Markdown forms, want %d and %d (in turn)", html, md, (tt.count+1)/2, tt.count/2)
			}
			if got := int(p.atOnce.Load()); got > tt.clients {
				t.Errorf("got %d requests at once, want at most %d", got, tt.clients)
			}
			if len(out.Millis) != tt.wantMillis || out.Seconds <= 0 {
				t.Errorf("got %d times over %gs, want %d over a positive time", len(out.Millis), out.Seconds, tt.wantMillis)
			}
		})
	}
}
