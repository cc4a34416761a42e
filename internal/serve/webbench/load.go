package webbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Load is a batch of requests: Count forms posted to URL by Clients
// clients at once, the documents taken in turn.
type Load struct {
	URL     string     `json:"url"`     // the route, http://host:port/forms/chromium/convert/html
	Docs    [][]string `json:"docs"`    // each document's files, index.html first
	Clients int        `json:"clients"` // 1 to maxClients
	Count   int        `json:"count"`   // 1 to maxCount
}

// Outcome is how a Load went: its wall time, and each request's time
// when there was one client.
type Outcome struct {
	Seconds float64   `json:"seconds"`
	Millis  []float64 `json:"millis,omitempty"`
	Err     string    `json:"error,omitempty"`
}

const (
	maxClients = 64
	maxCount   = 1_000_000
	// requestTimeout bounds one request, and both servers' time for
	// one, and calq's pool's for a conversion (all 30 s by default, which
	// a loaded machine can pass):
	// far above any conversion of the bench's documents.
	requestTimeout = 2 * time.Minute
)

// check bounds a Load before it starts.
func (l Load) check() error {
	switch {
	case l.Clients < 1 || l.Clients > maxClients:
		return fmt.Errorf("load: %d clients, want 1 to %d", l.Clients, maxClients)
	case l.Count < 1 || l.Count > maxCount:
		return fmt.Errorf("load: %d requests, want 1 to %d", l.Count, maxCount)
	case len(l.Docs) == 0:
		return errors.New("load: no documents")
	}
	return nil
}

// form is a document's multipart body, read once before the clock
// starts.
type form struct {
	name, contentType string
	body              []byte
}

func readForms(docs [][]string) ([]form, error) {
	forms := make([]form, len(docs))
	for i, files := range docs {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("load: %w", err)
			}
			w, err := mw.CreateFormFile("files", filepath.Base(f))
			if err != nil {
				return nil, err
			}
			w.Write(b)
		}
		mw.Close()
		forms[i] = form{name: filepath.Base(filepath.Dir(files[0])), contentType: mw.FormDataContentType(), body: body.Bytes()}
	}
	return forms, nil
}

// Run sends the load's requests and checks that each answers a PDF.
func (l Load) Run(ctx context.Context) Outcome {
	if err := l.check(); err != nil {
		return Outcome{Err: err.Error()}
	}
	forms, err := readForms(l.Docs)
	if err != nil {
		return Outcome{Err: err.Error()}
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: l.Clients}}
	defer hc.CloseIdleConnections()
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		mu     sync.Mutex
		firstE error
		millis = make([]float64, 0, l.Count)
		wg     sync.WaitGroup
	)
	begin := time.Now()
	for range l.Clients {
		wg.Go(func() {
			for i := range next {
				t := time.Now()
				err := post(ctx, hc, l.URL, forms[i%len(forms)])
				mu.Lock()
				millis = append(millis, float64(time.Since(t).Microseconds())/1000)
				if err != nil && firstE == nil {
					firstE = err
					cancel()
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range l.Count {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	o := Outcome{Seconds: time.Since(begin).Seconds()}
	if l.Clients == 1 {
		o.Millis = millis
	}
	if firstE == nil {
		firstE = parent.Err() // stopped before the last request
	}
	if firstE != nil {
		o.Err = firstE.Error()
	}
	return o
}

// post sends one form and checks that the answer is a PDF.
func post(ctx context.Context, hc *http.Client, url string, f form) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout+30*time.Second) // the server's error first
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(f.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", f.contentType)
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	if resp.StatusCode != http.StatusOK || !bytes.HasPrefix(out, []byte("%PDF-")) {
		return fmt.Errorf("%s: %s: %d %.200q", f.name, url, resp.StatusCode, out)
	}
	return nil
}
