package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/serve/jobs"
	"calq/internal/serve/webhook"
)

// TestBackPressure: a synchronous request predicted to take longer than
// its limit is refused at once with 429 and Retry-After; a request over
// a user's bound is 413, as it could never be queued.
func TestBackPressure(t *testing.T) {
	ts := newTestServer(t, func(o *Options) {
		// Long enough to read 300 files on a busy machine, far below the
		// time 300 files take on 2 instances.
		o.RequestTimeout = 10 * time.Second
		o.MaxQueuedUser = 400
		o.Limits.MaxFiles = 1000
	})
	var many []upload
	for i := range 300 {
		many = append(many, upload{"files", "d" + strconv.Itoa(i) + ".txt", []byte("d\n")})
	}
	resp := post(t, ts.URL+"/jobs", many, nil, nil)
	var v jobView
	json.Unmarshal(body(t, resp), &v)
	if resp.StatusCode != 202 {
		t.Fatalf("300 files as a job: %d", resp.StatusCode)
	}
	// 300 files ahead on 2 instances: over 10 s at any plausible rate.
	resp = post(t, ts.URL+"/forms/libreoffice/convert", []upload{{"files", "a.txt", []byte("a\n")}}, nil, nil)
	b := string(body(t, resp))
	if resp.StatusCode != 429 || !strings.Contains(b, "predicted") {
		t.Errorf("status %d %q, want 429 saying the prediction", resp.StatusCode, b)
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After = %q, want whole seconds", resp.Header.Get("Retry-After"))
	}
	if resp := do(t, http.MethodDelete, ts.URL+"/jobs/"+v.ID, ""); resp.StatusCode != 204 {
		t.Errorf("cancel: %d", resp.StatusCode)
	}
	// Over a user's bound, a request could never be queued: 413.
	resp = post(t, ts.URL+"/jobs", append(many, many[:101]...), nil, nil)
	if b := string(body(t, resp)); resp.StatusCode != 413 {
		t.Errorf("401 files over a bound of 400 a user: %d %q, want 413", resp.StatusCode, b)
	}
}

// TestRetention: a finished job older than Keep goes, with its files; a
// newer one stays.
func TestRetention(t *testing.T) {
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ts := newTestServer(t, func(o *Options) { o.Keep = time.Hour; o.now = clock })
	resp := post(t, ts.URL+"/jobs", []upload{{"files", "a.txt", []byte("a\n")}}, nil, nil)
	var v jobView
	json.Unmarshal(body(t, resp), &v)
	resp = get(t, ts.URL+"/jobs/"+v.ID+"?wait=30s", "")
	json.Unmarshal(body(t, resp), &v)
	if v.State != jobs.Done {
		t.Fatalf("job: %+v", v)
	}
	dir := filepath.Join(ts.Data, "jobs", v.ID)
	ts.sweepOnce(context.Background())
	if _, err := os.Stat(filepath.Join(dir, "result.pdf")); err != nil {
		t.Fatalf("a new job's result was swept: %v", err)
	}
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	ts.sweepOnce(context.Background())
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("an expired job's directory: %v, want it gone", err)
	}
	// Its record stays for the history, without a result.
	resp = get(t, ts.URL+"/jobs/"+v.ID, "")
	var ev jobView
	if err := json.Unmarshal(body(t, resp), &ev); err != nil || resp.StatusCode != 200 || !ev.Expired || ev.Result != "" {
		t.Errorf("an expired job: %d %+v (%v), want 200, expired, no result", resp.StatusCode, ev, err)
	}
	if resp := get(t, ts.URL+"/jobs/"+v.ID+"/result", ""); resp.StatusCode != http.StatusGone {
		t.Errorf("an expired job's result: %d, want 410", resp.StatusCode)
	}
	// After --keep-records it is forgotten.
	mu.Lock()
	now = now.Add(31 * 24 * time.Hour)
	mu.Unlock()
	ts.sweepOnce(context.Background())
	if resp := get(t, ts.URL+"/jobs/"+v.ID, ""); resp.StatusCode != 404 {
		t.Errorf("a job older than KeepRecords: %d, want 404", resp.StatusCode)
	}
}

// TestWebhook: the request answers 204 at once; the PDF goes to the
// webhook URL and a success event to the events URL, with the trace.
func TestWebhook(t *testing.T) {
	type hit struct {
		path, ctype, trace string
		body               []byte
	}
	hits := make(chan hit, 4)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Gotenberg-Trace"), b}
	}))
	defer sink.Close()
	ts := newTestServer(t, func(o *Options) {
		allow, err := webhook.NewPolicy([]string{"127.0.0.1/32"})
		if err != nil {
			t.Fatal(err)
		}
		o.WebhookPolicy = allow
		o.Webhooks = webhook.NewSender(allow, webhook.Options{Base: 10 * time.Millisecond})
	})
	h := http.Header{"Gotenberg-Webhook-Url": {sink.URL + "/result"}, "Gotenberg-Webhook-Events-Url": {sink.URL + "/events"},
		"Gotenberg-Trace": {"hook-1"}}
	resp := post(t, ts.URL+"/forms/libreoffice/convert", []upload{{"files", "a.txt", []byte("webhook\n")}}, nil, h)
	body(t, resp)
	if resp.StatusCode != 204 {
		t.Fatalf("status %d, want 204", resp.StatusCode)
	}
	got := map[string]hit{}
	for range 2 {
		select {
		case h := <-hits:
			got[h.path] = h
		case <-time.After(time.Minute):
			t.Fatalf("the webhook got %d requests in a minute, want 2", len(got))
		}
	}
	if r := got["/result"]; r.ctype != "application/pdf" || r.trace != "hook-1" || !strings.HasPrefix(string(r.body), "%PDF-") {
		t.Errorf("result upload: %s %q %.40q", r.ctype, r.trace, r.body)
	}
	var ev map[string]any
	if err := json.Unmarshal(got["/events"].body, &ev); err != nil || ev["event"] != "webhook.success" || ev["correlationId"] != "hook-1" {
		t.Errorf("event %s (%v)", got["/events"].body, err)
	}
	// Without the allow list, a loopback target is refused at once, with
	// Gotenberg's 403.
	ts2 := newTestServer(t, func(o *Options) {
		o.WebhookPolicy, _ = webhook.NewPolicy(nil)
		o.Webhooks = webhook.NewSender(o.WebhookPolicy, webhook.Options{})
	})
	resp = post(t, ts2.URL+"/forms/libreoffice/convert", []upload{{"files", "a.txt", []byte("x\n")}}, nil, h)
	if b := string(body(t, resp)); resp.StatusCode != 403 || !strings.Contains(b, "Gotenberg-Webhook") {
		t.Errorf("loopback webhook without --webhook-allow: %d %q, want 403 naming the header", resp.StatusCode, b)
	}
}

// TestWebhookRedelivery: a webhook whose target is down stays owed, in
// the journal, and is delivered by a later attempt (the sweep's, or the
// next start's).
func TestWebhookRedelivery(t *testing.T) {
	var mu sync.Mutex
	down := true
	got := make(chan string, 16)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		d := down
		mu.Unlock()
		if d {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.Copy(io.Discard, r.Body)
		got <- r.URL.Path
	}))
	defer sink.Close()
	ts := newTestServer(t, func(o *Options) {
		allow, _ := webhook.NewPolicy([]string{"127.0.0.1/32"})
		o.WebhookPolicy = allow
		o.Webhooks = webhook.NewSender(allow, webhook.Options{Base: time.Millisecond, Max: time.Millisecond, MaxAttempts: 2})
	})
	h := http.Header{"Gotenberg-Webhook-Url": {sink.URL + "/result"}, "Gotenberg-Webhook-Error-Url": {sink.URL + "/error"}}
	resp := post(t, ts.URL+"/forms/libreoffice/convert", []upload{{"files", "a.txt", []byte("a\n")}}, nil, h)
	body(t, resp)
	if resp.StatusCode != 204 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var owed []jobs.Job
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var err error
		if owed, err = ts.Jobs.Undelivered(context.Background()); err != nil {
			t.Fatal(err)
		}
		ts.mu.Lock()
		busy := len(ts.delivering) > 0
		ts.mu.Unlock()
		if len(owed) == 1 && owed[0].DeliveryError != "" && !busy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failed delivery recorded: %+v", owed)
		}
	}
	if !strings.Contains(owed[0].DeliveryError, "503") || strings.Join(owed[0].Pending, ",") != "webhook" {
		t.Errorf("owed: %v, %q", owed[0].Pending, owed[0].DeliveryError)
	}
	mu.Lock()
	down = false
	mu.Unlock()
	ts.redeliver(context.Background())
	select {
	case p := <-got:
		if p != "/result" {
			t.Errorf("redelivered to %s, want /result", p)
		}
	case <-time.After(time.Minute):
		t.Fatal("not redelivered")
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if owed, _ := ts.Jobs.Undelivered(context.Background()); len(owed) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("still owed after the redelivery")
		}
	}
}
