package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// received is one request a target got.
type received struct {
	Method string
	Header http.Header
	Body   []byte
}

// target is a loopback server answering with statuses in turn (200 once they run out) and recording
// every request.
type target struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	got      []received
}

func newTarget(t *testing.T, statuses ...int) *target {
	tg := &target{statuses: statuses}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		tg.mu.Lock()
		tg.got = append(tg.got, received{Method: r.Method, Header: r.Header.Clone(), Body: body})
		status := http.StatusOK
		if len(tg.statuses) > 0 {
			status, tg.statuses = tg.statuses[0], tg.statuses[1:]
		}
		tg.mu.Unlock()
		if status == http.StatusFound {
			w.Header().Set("Location", "http://127.0.0.1:1/elsewhere")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(tg.Close)
	return tg
}

func (tg *target) requests() []received {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]received(nil), tg.got...)
}

var fixedNow = time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)

// loopbackSender reaches the tests' loopback servers through the allow list, with waits of a millisecond.
func loopbackSender(t *testing.T, o Options) *Sender {
	t.Helper()
	p, err := NewPolicy([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Base == 0 {
		o.Base, o.Max = time.Millisecond, 2*time.Millisecond
	}
	o.Now = func() time.Time { return fixedNow }
	s := NewSender(p, o)
	t.Cleanup(s.Close)
	return s
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return m
}

func TestDeliverRetries(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		attempts int
		status   int // of the final StatusError; 0: delivered
	}{
		{"first time", nil, 1, 0},
		{"two 500s then success", []int{500, 500}, 3, 0},
		{"429 then success", []int{429}, 2, 0},
		{"408 then success", []int{408}, 2, 0},
		{"503 every time", []int{503, 503, 503, 503, 503}, 4, 503},
		{"400 is final", []int{400}, 1, 400},
		{"404 is final", []int{404}, 1, 404},
		{"redirect not followed", []int{302}, 1, 302},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := newTarget(t, tt.statuses...)
			s := loopbackSender(t, Options{})
			path := writeFile(t, "out.pdf", []byte("%PDF-1.7 result"))
			req := &Request{URL: tg.URL + "/in", Method: "PUT"}
			err := s.Deliver(context.Background(), req, Result{Path: path, ContentType: "application/pdf"})
			if got := len(tg.requests()); got != tt.attempts {
				t.Errorf("got %d attempts, want %d", got, tt.attempts)
			}
			var se *StatusError
			switch {
			case tt.status == 0 && err != nil:
				t.Errorf("Deliver: %v", err)
			case tt.status != 0 && (!errors.As(err, &se) || se.Status != tt.status):
				t.Errorf("Deliver: %v, want a StatusError %d", err, tt.status)
			}
		})
	}
}

func TestDeliverSuccess(t *testing.T) {
	upload, events := newTarget(t), newTarget(t)
	s := loopbackSender(t, Options{UserAgent: "calq-test"})
	data := []byte("%PDF-1.7\nthe converted document\n%%EOF\n")
	path := writeFile(t, "tmp-123.pdf", data)
	req := &Request{
		URL: upload.URL + "/in?sig=abc", Method: "PATCH", EventsURL: events.URL + "/events",
		ExtraHeaders: map[string]string{"X-Api-Key": "secret", "Content-Type": "text/plain", "Gotenberg-Trace": "forged"},
	}
	res := Result{Trace: "trace-1", Path: path, ContentType: "application/pdf", FileName: "report.pdf", Extra: map[string]any{"jobId": "j1", "event": "forged"}}
	if err := s.Deliver(context.Background(), req, res); err != nil {
		t.Fatalf("Deliver: %v", err)
	}

	up := upload.requests()
	if len(up) != 1 {
		t.Fatalf("upload got %d requests, want 1", len(up))
	}
	if string(up[0].Body) != string(data) {
		t.Errorf("uploaded body %q, want the file %q", up[0].Body, data)
	}
	wantHeaders := map[string]string{
		"Content-Type":        "application/pdf", // ours win over the extra headers, as in Gotenberg
		"Content-Disposition": `attachment; filename="report.pdf"`,
		"Gotenberg-Trace":     "trace-1",
		"X-Api-Key":           "secret",
		"User-Agent":          "calq-test",
		"Content-Length":      strconv.Itoa(len(data)),
	}
	if up[0].Method != "PATCH" {
		t.Errorf("upload method %s, want PATCH", up[0].Method)
	}
	for k, want := range wantHeaders {
		if got := up[0].Header.Get(k); got != want {
			t.Errorf("upload header %s: got %q, want %q", k, got, want)
		}
	}

	ev := events.requests()
	if len(ev) != 1 {
		t.Fatalf("events got %d requests, want 1", len(ev))
	}
	if ev[0].Method != "POST" || ev[0].Header.Get("Content-Type") != "application/json" || ev[0].Header.Get("Gotenberg-Trace") != "trace-1" || ev[0].Header.Get("X-Api-Key") != "secret" {
		t.Errorf("event request %s with headers %v, want a JSON POST with the trace and extra headers", ev[0].Method, ev[0].Header)
	}
	want := map[string]any{"event": "webhook.success", "correlationId": "trace-1", "timestamp": "2026-03-04T05:06:07.000000008Z", "jobId": "j1"}
	if got := decode(t, ev[0].Body); !reflect.DeepEqual(got, want) {
		t.Errorf("event %v, want %v", got, want)
	}
}

func TestDeliverFailure(t *testing.T) {
	upload, errs, events := newTarget(t), newTarget(t), newTarget(t)
	s := loopbackSender(t, Options{})
	req := &Request{URL: upload.URL, Method: "POST", ErrorURL: errs.URL + "/err", ErrorMethod: "PUT", EventsURL: events.URL}
	f := &Failure{Status: 400, Message: "Invalid form data: form field 'quality' is invalid."}
	if err := s.Deliver(context.Background(), req, Result{Trace: "t2", Failure: f}); err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	if n := len(upload.requests()); n != 0 {
		t.Errorf("upload URL got %d requests on failure, want 0", n)
	}
	er := errs.requests()
	if len(er) != 1 || er[0].Method != "PUT" || er[0].Header.Get("Gotenberg-Trace") != "t2" || er[0].Header.Get("Content-Type") != "application/json" {
		t.Fatalf("error URL got %+v, want one JSON PUT with the trace", er)
	}
	if got, want := decode(t, er[0].Body), map[string]any{"status": 400.0, "message": f.Message}; !reflect.DeepEqual(got, want) {
		t.Errorf("error body %v, want %v", got, want)
	}
	ev := events.requests()
	if len(ev) != 1 {
		t.Fatalf("events got %d requests, want 1", len(ev))
	}
	want := map[string]any{"event": "webhook.error", "correlationId": "t2", "timestamp": "2026-03-04T05:06:07.000000008Z",
		"error": map[string]any{"status": 400.0, "message": f.Message}}
	if got := decode(t, ev[0].Body); !reflect.DeepEqual(got, want) {
		t.Errorf("event %v, want %v", got, want)
	}
}

func TestDeliverUploadFailureIsReported(t *testing.T) {
	upload, events := newTarget(t, 403), newTarget(t)
	s := loopbackSender(t, Options{})
	req := &Request{URL: upload.URL, Method: "POST", EventsURL: events.URL}
	err := s.Deliver(context.Background(), req, Result{Trace: "t3", Path: writeFile(t, "a.pdf", []byte("x"))})
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 403 {
		t.Fatalf("Deliver: %v, want the upload's 403", err)
	}
	ev := events.requests()
	if len(ev) != 1 {
		t.Fatalf("events got %d requests, want 1", len(ev))
	}
	got := decode(t, ev[0].Body)
	if got["event"] != "webhook.error" || got["error"].(map[string]any)["status"] != 500.0 {
		t.Errorf("event %v, want webhook.error with status 500", got)
	}
}

func TestDeliverSniffsAndOverrides(t *testing.T) {
	upload := newTarget(t)
	s := loopbackSender(t, Options{})
	req := &Request{URL: upload.URL, Method: "POST", EventsURL: upload.URL, ExtraHeaders: map[string]string{"Content-Disposition": "inline"}}
	path := writeFile(t, "résumé.pdf", []byte("%PDF-1.4\n"))
	if err := s.Deliver(context.Background(), req, Result{Path: path}); err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	h := upload.requests()[0].Header
	if got := h.Get("Content-Type"); got != "application/pdf" {
		t.Errorf("sniffed Content-Type %q, want application/pdf", got)
	}
	if got := h.Get("Content-Disposition"); got != "inline" {
		t.Errorf("Content-Disposition %q, want the client's inline", got)
	}
	if got, want := attachment("résumé.pdf"), "attachment; filename*=utf-8''r%C3%A9sum%C3%A9.pdf"; got != want {
		t.Errorf("attachment = %q, want %q", got, want)
	}
}

func TestDeliverRefusesLoopbackWithoutAllowList(t *testing.T) {
	tg := newTarget(t)
	s := NewSender(nil, Options{Base: time.Millisecond})
	defer s.Close()
	err := s.Deliver(context.Background(), &Request{URL: tg.URL, Method: "POST", EventsURL: tg.URL}, Result{Path: writeFile(t, "a.pdf", []byte("x"))})
	if !errors.Is(err, ErrRefused) {
		t.Errorf("Deliver: %v, want refused", err)
	}
	if n := len(tg.requests()); n != 0 {
		t.Errorf("target got %d requests, want 0", n)
	}
}

// deliverCounting delivers a small file to a loopback server whose handler is told which attempt it
// serves, and returns how many attempts the server saw.
func deliverCounting(t *testing.T, o Options, handle func(n int, w http.ResponseWriter, r *http.Request)) int {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handle(int(calls.Add(1)), w, r)
	}))
	defer srv.Close()
	s := loopbackSender(t, o)
	if err := s.Deliver(context.Background(), &Request{URL: srv.URL, Method: "POST"}, Result{Path: writeFile(t, "a.pdf", []byte("x"))}); err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	return int(calls.Load())
}

func TestDeliverRetriesNetworkErrors(t *testing.T) {
	got := deliverCounting(t, Options{}, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n <= 2 { // drop the connection without a reply
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		}
	})
	if got != 3 {
		t.Errorf("got %d attempts, want 3", got)
	}
}

func TestDeliverAttemptTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	got := deliverCounting(t, Options{AttemptTimeout: 50 * time.Millisecond}, func(n int, _ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so that the server notices the client hanging up
		if n == 1 {
			select { // hang until the attempt times out
			case <-r.Context().Done():
			case <-release:
			}
		}
	})
	if got != 2 {
		t.Errorf("got %d attempts, want 2", got)
	}
}

func TestDeliverStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(503)
		// The first attempt fails; ctx then ends, most likely during the hour-long backoff.
		time.AfterFunc(2*time.Millisecond, cancel)
	}))
	defer srv.Close()
	s := loopbackSender(t, Options{Base: time.Hour, Max: time.Hour})
	done := make(chan error, 1)
	go func() {
		done <- s.Deliver(ctx, &Request{URL: srv.URL, Method: "POST"}, Result{Path: writeFile(t, "a.pdf", []byte("x"))})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Deliver: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Deliver kept waiting after ctx ended")
	}
}

func TestReplyIsBounded(t *testing.T) {
	const total = 64 << 20
	written := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 32<<10)
		n := 0
		for n < total {
			m, err := w.Write(chunk)
			n += m
			if err != nil {
				break
			}
		}
		written <- n
	}))
	defer srv.Close()
	s := loopbackSender(t, Options{})
	if err := s.Deliver(context.Background(), &Request{URL: srv.URL, Method: "POST"}, Result{Path: writeFile(t, "a.pdf", []byte("x"))}); err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	if n := <-written; n >= total {
		t.Errorf("the target wrote its whole %d-byte reply; the sender should stop reading after %d", n, maxReply)
	}
}

func TestErrorsHideQuery(t *testing.T) {
	tg := newTarget(t, 400)
	s := loopbackSender(t, Options{})
	err := s.Deliver(context.Background(), &Request{URL: tg.URL + "/in?X-Amz-Signature=secret", Method: "PUT"}, Result{Path: writeFile(t, "a.pdf", []byte("x"))})
	if err == nil {
		t.Fatal("Deliver succeeded against a 400")
	}
	if msg := err.Error(); strings.Contains(msg, "secret") || !strings.Contains(msg, "/in") {
		t.Errorf("error %q leaks the query or hides the path", msg)
	}
}

func TestBackoff(t *testing.T) {
	s := NewSender(nil, Options{Base: 100 * time.Millisecond, Max: time.Second})
	for n, ceil := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 60: time.Second} {
		for range 50 {
			if d := s.backoff(n); d < ceil/2 || d > ceil {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", n, d, ceil/2, ceil)
			}
		}
	}
}
