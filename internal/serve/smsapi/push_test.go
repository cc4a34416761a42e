package smsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"calq/internal/serve/users"
	"calq/sms/store"
)

// receiver is a loopback push target that answers with statuses in turn
// (200 once they run out) and hands each event it took (2xx) to got.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	tries    int
	got      chan Event
}

func newReceiver(t testing.TB, statuses ...int) *receiver {
	rc := &receiver{statuses: statuses, got: make(chan Event, 100)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.tries++
		status := http.StatusOK
		if len(rc.statuses) > 0 {
			status, rc.statuses = rc.statuses[0], rc.statuses[1:]
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
		if status == http.StatusOK {
			var e Event
			if err := json.Unmarshal(b, &e); err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("push %s %q (%s): %v", r.Method, b, r.Header.Get("Content-Type"), err)
			}
			rc.got <- e
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

// events are the events received so far, in order.
func (rc *receiver) events() []Event {
	var out []Event
	for {
		select {
		case e := <-rc.got:
			out = append(out, e)
		default:
			return out
		}
	}
}

func types(es []Event) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Type+":"+e.State)
	}
	return out
}

// accept marks part 1 of message id accepted by gsm0 with reference mr,
// and files a status report for it, as the daemon and sms.Receive do.
func (e *env) acceptAndReport(id int64, to string, mr, st int) {
	ctx := context.Background()
	_, err := e.box.SMSPartAccepted(ctx, id, 1, "gsm0", mr)
	must(e.t, err)
	if st >= 0 {
		_, err = e.box.AddInboxEntry(ctx, store.InboxEntry{Kind: store.KindReport, Modem: "gsm0", Sender: to, MR: mr, ST: st,
			Received: e.clock.Now(), DT: e.clock.Now()}, nil)
		must(e.t, err)
	}
}

// TestPushReportAndFinal: a report URL gets the acceptance, the status
// report and the final state, each once and in this order, also when it
// failed first; what is owed survives a new Service on the journal
// reopened.
func TestPushReportAndFinal(t *testing.T) {
	rc := newReceiver(t, http.StatusServiceUnavailable)
	e := newEnv(t, nil)
	ctx := context.Background()
	id := e.send("alice", `{"to":"+491701234567","text":"hi","reportUrl":"`+rc.URL+`/dlr?x=1"}`)[0].ID
	e.acceptAndReport(id, "+491701234567", 42, 0)
	if _, err := e.svc.round(ctx); err != nil {
		t.Fatal(err)
	}
	// The first push was refused with 503: the others wait behind it.
	if got := rc.events(); len(got) != 0 {
		t.Fatalf("after the first round: %v, want none delivered", types(got))
	}
	// Restart: a new Service on the journal, reopened, owes the rest.
	must(t, e.jn.Close())
	e.open(nil)
	for range 3 {
		e.clock.Set(e.clock.Now().Add(time.Second))
		if _, err := e.svc.round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := rc.events()
	if want := "[sms.accepted:accepted sms.report:delivered sms.final:delivered]"; fmt.Sprint(types(got)) != want {
		t.Errorf("events: %v, want %s, each once, in order", types(got), want)
	}
	if len(got) == 3 && (got[1].Report == nil || got[1].Report.Status != 0 || got[1].ID != id || got[1].To != "+491701234567" ||
		got[0].MR == nil || *got[0].MR != 42 || got[0].Part != 1) {
		t.Errorf("events = %+v", got)
	}
	rc.mu.Lock()
	tries := rc.tries
	rc.mu.Unlock()
	if tries != 4 {
		t.Errorf("target tried %d times, want 4: 1 refused, 3 events once each", tries)
	}
	m, err := e.svc.Get(ctx, users.User{Name: "alice"}, id)
	if err != nil || len(m.Parts) != 1 || m.Parts[0].MR == nil || *m.Parts[0].MR != 42 || len(m.Parts[0].Reports) != 1 ||
		m.Parts[0].Reports[0].Outcome != "delivered" || m.Push == nil || m.Push.Kind != PushJSON {
		t.Errorf("Get = %+v, %v, want part 1 with reference 42, its report and the push", m, err)
	}
}

// TestPushGivesUp: a target that keeps failing gets Push.MaxAttempts
// attempts, then the push is given up and never tried again.
func TestPushGivesUp(t *testing.T) {
	rc := newReceiver(t, 500, 500, 500, 500, 500, 500)
	e := newEnv(t, func(o *Options) { o.Push.MaxAttempts = 2 })
	ctx := context.Background()
	id := e.send("alice", `{"to":"+491701234567","text":"hi","reportUrl":"`+rc.URL+`"}`)[0].ID
	_, err := e.box.CancelSMS(ctx, id)
	must(t, err)
	for range 4 {
		e.clock.Set(e.clock.Now().Add(time.Second))
		_, err := e.svc.round(ctx)
		must(t, err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.tries != 2 {
		t.Errorf("target tried %d times, want 2", rc.tries)
	}
	var state string
	must(t, e.jn.QueryRow(ctx, `SELECT state FROM smsapi_pushes`).Scan(&state))
	if state != "failed" {
		t.Errorf("push state = %s, want failed", state)
	}
}

// TestPushInbound: a message received on a user's number is pushed to its
// inbound webhook, not to another user's; Wake makes Run read and push
// at once.
func TestPushInbound(t *testing.T) {
	alice, bob := newReceiver(t), newReceiver(t)
	e := newEnv(t, func(o *Options) { o.PollEvery = time.Hour })
	ctx := context.Background()
	must(t, e.users.SetSMSRights(ctx, "alice", users.SMSRights{Allowed: true, Numbers: []string{"modem-alice"}, InboundURL: alice.URL}))
	must(t, e.users.SetSMSRights(ctx, "bob", users.SMSRights{Numbers: []string{"modem-bob"}, InboundURL: bob.URL}))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- e.svc.Run(ctx) }()
	defer func() { cancel(); <-done }()
	_, err := e.box.AddInboxEntry(ctx, store.InboxEntry{Kind: store.KindMessage, Modem: "modem-alice", Sender: "+4930123456",
		Text: "hello alice", Received: t0}, nil)
	must(t, err)
	e.svc.Wake()
	ev := <-alice.got
	if ev.Type != "sms.inbound" || ev.Inbound == nil || ev.Inbound.Text != "hello alice" || ev.Inbound.From != "+4930123456" {
		t.Errorf("alice's inbound event = %+v", ev)
	}
	if got := bob.events(); len(got) != 0 {
		t.Errorf("bob got %v, want nothing", types(got))
	}
}

// TestPushOnceAcrossServices: two Services on one journal (two calq
// serve processes) deliver each push once.
func TestPushOnceAcrossServices(t *testing.T) {
	rc := newReceiver(t)
	e := newEnv(t, nil)
	ctx := context.Background()
	other, err := New(ctx, e.opts)
	must(t, err)
	for i := range 10 {
		id := e.send("alice", fmt.Sprintf(`{"to":"+49170123456%d","text":"hi","reportUrl":"%s/%d"}`, i, rc.URL, i))[0].ID
		_, err := e.box.CancelSMS(ctx, id)
		must(t, err)
	}
	for _, svc := range []*Service{e.svc, other} { // both owe them
		_, err := svc.scanOutbox(ctx)
		must(t, err)
	}
	var wg sync.WaitGroup
	for _, svc := range []*Service{e.svc, other} {
		wg.Go(func() {
			if _, err := svc.deliverDue(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := rc.events(); len(got) != 10 {
		t.Errorf("the target got %d events, want 10: each final state once", len(got))
	}
}

// TestPushOnWakeWhileWatched: a Wake runs a round only when it may owe
// something (busy); a message sent with a report URL is watched, so the
// Wake after its change pushes it at once, an hour before the next poll.
func TestPushOnWakeWhileWatched(t *testing.T) {
	rc := newReceiver(t)
	e := newEnv(t, func(o *Options) { o.PollEvery = time.Hour })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.svc.Run(ctx) }()
	defer func() { cancel(); <-done }()
	e.svc.Wake() // nothing watched, owed or inbound: no round
	id := e.send("alice", `{"to":"+491701234567","text":"hi","reportUrl":"`+rc.URL+`"}`)[0].ID
	if !e.svc.busy() {
		t.Fatalf("after a send with a report URL the Service is not busy: a Wake would push nothing")
	}
	_, err := e.box.CancelSMS(ctx, id)
	must(t, err)
	e.svc.Wake()
	if ev := <-rc.got; ev.Type != "sms.final" || ev.ID != id || ev.State != "cancelled" {
		t.Errorf("the push after the Wake = %+v, want sms.final cancelled of %d", ev, id)
	}
}
