package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/pgtest"
	"calq/sms/emu"
)

// finals waits until hooks got the sms.final of every message of ids
// and returns their states by id.
func finals(t *testing.T, hooks *receiver, ids []int64) map[int64]string {
	t.Helper()
	want := map[float64]bool{}
	for _, id := range ids {
		want[float64(id)] = true
	}
	got := map[int64]string{}
	for len(got) < len(ids) {
		c := hooks.await(t, fmt.Sprintf("sms.final of %d messages (got %d)", len(ids), len(got)), func(c hookCall) bool {
			e := c.event(t)
			id, _ := e["id"].(float64)
			return e["type"] == "sms.final" && want[id]
		})
		e := c.event(t)
		got[int64(e["id"].(float64))] = e["state"].(string)
	}
	return got
}

// checkSettled checks that each message of ids is sent (or delivered),
// or failed with a reason, as GET /sms/ID shows it, and that no PDU went
// out twice.
func (r *smsRig) checkSettled(t *testing.T, ids []int64) {
	t.Helper()
	for _, id := range ids {
		m := r.message(t, id)
		switch {
		case m.State == "queued" || m.State == "sending":
			t.Errorf("message %d: still %s", id, m.State)
		case m.State != "sent" && m.State != "delivered" && m.Reason == "":
			t.Errorf("message %d: %s without a reason", id, m.State)
		}
	}
	recs, _ := r.pdus.all()
	if dups := duplicates(recs); len(dups) > 0 {
		t.Errorf("%d PDUs went out twice: %q", len(dups), dups)
	}
}

// longTexts are n texts of two GSM 7-bit parts each, every part unlike
// every other (so a part sent twice shows in the emulator's log).
func longTexts(n int) []string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("calq e2e message %d: %s / end of %d", i, strings.Repeat(fmt.Sprint(i%10), 170), i)
	}
	return texts
}

// TestServeSMSKilled: messages accepted with 202 are sent, or failed
// with a reason, across a SIGKILL of calq serve while its modems send
// them: started again on the same journal and data, it sends the rest,
// never a part twice (the part whose +CMGS the kill interrupted is of
// unknown outcome, not sent again), and pushes every final state.
func TestServeSMSKilled(t *testing.T) {
	hooks := newReceiver(t)
	r := newSMSRig(t, emu.Options{Modems: 2, Latency: 150 * time.Millisecond}, "", nil)
	var ids []int64
	for _, text := range longTexts(6) {
		ids = append(ids, r.send(t, map[string]any{"to": "+4915112345678", "text": text, "reportUrl": hooks.URL + "/report"})...)
	}
	r.pdus.await(t, 3)
	r.serve.kill()
	r.start(t)
	states := finals(t, hooks, ids)
	r.checkSettled(t, ids)
	recs, _ := r.pdus.all()
	if len(recs) > 2*len(ids) {
		t.Errorf("%d PDUs went out for %d messages of 2 parts", len(recs), len(ids))
	}
	t.Logf("final states %v, %d PDUs", states, len(recs))
}

// TestServeSMSModemPulled: a modem pulled out while it sends a long
// message leaves the message sent, or failed with a reason, no part of
// it twice; a message sent after it goes out through the other modem
// (the health check takes the vanished one out within --health-every,
// before the message's retries run out).
func TestServeSMSModemPulled(t *testing.T) {
	hooks := newReceiver(t)
	r := newSMSRig(t, emu.Options{Modems: 2, Latency: 200 * time.Millisecond}, "", nil)
	pulled := make(chan string, 1)
	var once sync.Once
	r.pdus.mu.Lock()
	r.pdus.hook = func(p pduRecord) {
		once.Do(func() { // the first PDU's modem, while it waits for +CMGS
			pulled <- p.Device
			go r.emu.Inject(p.Device, emu.Fault{Vanish: true})
		})
	}
	r.pdus.mu.Unlock()
	long := strings.Repeat("calq e2e: a modem pulled out mid-message. ", 9) // 3 parts
	ids := r.send(t, map[string]any{"to": "+4915112345678", "text": long, "reportUrl": hooks.URL + "/report"})
	t.Cleanup(func() {
		if t.Failed() {
			for _, id := range ids {
				t.Logf("message: %+v", r.message(t, id))
			}
			t.Logf("calq serve:\n%s", r.serve.stderr)
		}
	})
	gone := <-pulled
	first := finals(t, hooks, ids)
	// The next message asks for no status report (Kannel's dlr-mask 8|16:
	// accepted by a modem, or failed): its end is its modem's answer.
	q := url.Values{"username": {"ann"}, "password": {r.key}, "to": {"+4915112345678"}, "text": {"calq e2e: after the modem was pulled"},
		"dlr-mask": {"24"}, "dlr-url": {hooks.URL + "/dlr?id=%I&type=%d&answer=%A"}}
	status, body, _ := request(t, http.MethodGet, r.serve.URL+"/cgi-bin/sendsms?"+q.Encode(), "", nil, "")
	if status != http.StatusAccepted {
		t.Fatalf("sendsms after the modem was pulled: %d %s", status, body)
	}
	dlr := hooks.await(t, "the next message's dlr-url", func(c hookCall) bool { return c.Path == "/dlr" })
	next, err := strconv.ParseInt(dlr.Query.Get("id"), 10, 64)
	if err != nil {
		t.Fatalf("dlr-url's id %q: %v", dlr.Query.Get("id"), err)
	}
	r.checkSettled(t, append(ids, next))
	if dlr.Query.Get("type") != "8" {
		t.Errorf("the message after the modem was pulled: dlr type %s (%s), want 8: accepted through the other modem",
			dlr.Query.Get("type"), dlr.Query.Get("answer"))
	}
	t.Logf("modem %s pulled; the long message %v, the next: dlr type %s, %s", gone, first, dlr.Query.Get("type"), dlr.Query.Get("answer"))
}

// TestServeSMSPostgresRestart: on a shared outbox in PostgreSQL, messages
// accepted with 202 are sent, or failed with a reason, across a restart
// of the database server while the modem sends them; no part twice.
func TestServeSMSPostgresRestart(t *testing.T) {
	pg := pgtest.Start(t)
	hooks := newReceiver(t)
	r := newSMSRig(t, emu.Options{Latency: 150 * time.Millisecond}, pg.CreateDB("calq"), nil)
	var ids []int64
	for _, text := range longTexts(4) {
		ids = append(ids, r.send(t, map[string]any{"to": "+4915112345678", "text": text, "reportUrl": hooks.URL + "/report"})...)
	}
	r.pdus.await(t, 2)
	pg.Stop()
	if !r.serve.stderr.await("unreachable", smsWait) {
		t.Fatalf("calq serve did not see the database go:\n%s", r.serve.stderr)
	}
	pg.Start()
	finals(t, hooks, ids)
	r.checkSettled(t, ids)
}
