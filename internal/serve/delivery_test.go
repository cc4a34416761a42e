package serve

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/serve/jobs"
	"calq/internal/serve/webhook"
)

// TestDeliveryFailureRecorded: a webhook that cannot be delivered leaves
// its trace in the job's record, GET /jobs/ID and the job's page, whether
// it is tried again (connection refused, a name that does not resolve)
// or not (the policy refuses the address when connecting).
func TestDeliveryFailureRecorded(t *testing.T) {
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer live.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/hook"
	l.Close()
	loopback, err := webhook.NewPolicy([]string{"127.0.0.0/8", "calq-test.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	quick := webhook.Options{MaxAttempts: 2, Base: time.Millisecond, Max: time.Millisecond}
	tests := []struct {
		name    string
		sender  *webhook.Policy // the sender's: what it may connect to
		url     string
		want    string // in delivery_error
		pending bool   // tried again
	}{
		{"connection refused", loopback, closed, "connection refused", true},
		{"no such host", loopback, "http://calq-test.invalid/hook", "calq-test.invalid", true},
		{"refused by the policy when connecting", nil, live.URL + "/hook", "which webhooks may not reach", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := pageServer(t, func(o *Options) {
				o.WebhookPolicy, o.Webhooks = loopback, webhook.NewSender(tt.sender, quick)
			})
			key, err := ts.Users.NewKey(t.Context(), "alice")
			if err != nil {
				t.Fatal(err)
			}
			hook := http.Header{webhook.HeaderURL: {tt.url}, webhook.HeaderEventsURL: {tt.url}, "Authorization": {"Bearer " + key}}
			resp := post(t, ts.URL+"/jobs", []upload{{"files", "a.txt", []byte("a\n")}}, nil, hook)
			var v jobView
			if err := json.Unmarshal(body(t, resp), &v); err != nil || resp.StatusCode != http.StatusAccepted {
				t.Fatalf("POST /jobs: %d, %v", resp.StatusCode, err)
			}
			v = deliveryView(t, ts, v.ID)
			if !strings.Contains(v.DeliveryError, tt.want) {
				t.Errorf("delivery_error %q, want it to say %q", v.DeliveryError, tt.want)
			}
			if got := slices.Contains(v.Pending, deliverWebhook); got != tt.pending {
				t.Errorf("deliveries_pending %v: webhook pending %v, want %v", v.Pending, got, tt.pending)
			}
			alice := browserClient(t)
			signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
			if _, page := pageGet(t, alice, ts.URL+"/job/"+v.ID, nil); !strings.Contains(page, `id="delivery-error"`) ||
				!strings.Contains(page, tt.want) {
				t.Errorf("the job's page does not say why the webhook was not delivered:\n%s", page)
			}
		})
	}
}

// deliveryView is job id's view once a failed delivery is recorded.
func deliveryView(t *testing.T, ts *testServer, id string) jobView {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, err := ts.Jobs.Get(t.Context(), "*", id)
		if err != nil {
			t.Fatal(err)
		}
		if j.DeliveryError != "" {
			return ts.view(&j)
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: no failed delivery recorded after 30 s: state %s, deliveries pending %v", id, j.State, j.Pending)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDeliveryGivenUpRecorded: a delivery still failing when --keep
// ends is given up, and the job's record (kept for --keep-records) still
// says why it was never delivered.
func TestDeliveryGivenUpRecorded(t *testing.T) {
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ts := newTestServer(t, func(o *Options) { o.Keep = time.Hour; o.now = clock })
	ctx := t.Context()
	j := &jobs.Job{ID: newID(), Route: routeConvert, Request: jobs.Request{Options: json.RawMessage(`{}`),
		Files: []jobs.File{{Name: "a.txt", Stored: "0001.txt"}}}}
	if err := ts.Jobs.Add(ctx, j); err != nil {
		t.Fatal(err)
	}
	finish(t, ts.Jobs, j.ID, jobs.Done, &jobs.Result{Path: "result.pdf", ContentType: contentTypePDF, Name: "a.pdf"})
	if err := ts.Jobs.SetPending(ctx, j.ID, []string{deliverWebhook}, "webhook: connection refused"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	ts.sweepOnce(ctx)
	got, err := ts.Jobs.Get(ctx, "*", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Pending) > 0 || !strings.Contains(got.DeliveryError, "connection refused") || !strings.Contains(got.DeliveryError, "given up") {
		t.Errorf("after --keep: pending %v, delivery error %q; want none pending, the error kept, given up", got.Pending, got.DeliveryError)
	}
}
