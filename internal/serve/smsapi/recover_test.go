package smsapi

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"calq/sms"
)

// TestRecoverBindings: a Service that died between recording a message
// in the outbox and binding it to its sender leaves it to the next one,
// which finds its sender; a row whose message was never recorded is
// deleted and counts no more against the quota.
func TestRecoverBindings(t *testing.T) {
	quota := func(o *Options) { o.Quota = 2 }
	e := newEnv(t, quota)
	ctx := context.Background()
	seqs, err := e.svc.reserve(ctx, "alice", 2, 0, 2, "")
	must(t, err)
	msgs, _, err := sms.Compose([]string{"+491701234567"}, "orphan", sms.SendOptions{})
	must(t, err)
	msgs[0].Options = withSeq(msgs[0].Options, seqs[0])
	ids, err := e.box.AddSMS(ctx, msgs) // then the Service dies: no bind; seqs[1]'s message never recorded
	must(t, err)
	path := fmt.Sprintf("/sms/%d", ids[0])
	if status, _, _ := e.do("alice", "GET", path, ""); status != http.StatusNotFound {
		t.Errorf("GET of an unbound message = %d, want 404", status)
	}
	must(t, e.jn.Close())
	e.clock.Set(t0.Add(2 * time.Minute))
	e.open(quota)
	if status, b, _ := e.do("alice", "GET", path, ""); status != http.StatusOK {
		t.Errorf("GET after recovery = %d %s, want 200", status, b)
	}
	if status, _, _ := e.do("bob", "GET", path, ""); status != http.StatusNotFound {
		t.Errorf("bob's GET after recovery = %d, want 404", status)
	}
	e.send("alice", `{"to":"+491701234567","text":"fits: the unrecorded row is gone"}`)
	if status, b, _ := e.do("alice", "POST", "/sms", `{"to":"+491701234567","text":"over"}`); status != http.StatusTooManyRequests {
		t.Errorf("third message of the day = %d %s, want 429", status, b)
	}
}
