package smsapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/serve/users"
)

// TestSendRefusesBadInput: each bad field is a 400 naming it, and
// nothing is recorded, in the outbox or in the Service's table.
func TestSendRefusesBadInput(t *testing.T) {
	e := newEnv(t, nil)
	many := make([]string, MaxRecipients+1)
	for i := range many {
		many[i] = fmt.Sprintf(`"+4917012345%02d"`, i%100)
	}
	tests := []struct {
		name, body, field string
	}{
		{"not a number", `{"to":"call me","text":"hi"}`, `to "call me"`},
		{"number with letters", `{"to":["+49170123","49x"],"text":"hi"}`, `to "49x"`},
		{"no recipient", `{"to":[],"text":"hi"}`, `to`},
		{"to not a string", `{"to":49170,"text":"hi"}`, `to "49170"`},
		{"too many recipients", `{"to":[` + strings.Join(many, ",") + `],"text":"hi"}`, `to "101 recipients": is more than 100`},
		{"empty text", `{"to":"+491701234567","text":"  "}`, `text`},
		{"text over 255 parts", `{"to":"+491701234567","text":"` + strings.Repeat("a", 153*255+1) + `"}`, `text`},
		{"text with NUL", `{"to":"+491701234567","text":"a\u0000b"}`, `text`},
		{"private reportUrl", `{"to":"+491701234567","text":"hi","reportUrl":"http://10.1.2.3/r"}`, `reportUrl "http://10.1.2.3/r"`},
		{"reportUrl not http", `{"to":"+491701234567","text":"hi","reportUrl":"ftp://example.com/r"}`, `reportUrl`},
		{"unknown priority", `{"to":"+491701234567","text":"hi","priority":"P9"}`, `priority "P9": is not P0, P1, P2 or P3`},
		{"bad at", `{"to":"+491701234567","text":"hi","at":"tomorrow"}`, `at "tomorrow"`},
		{"validity not a duration", `{"to":"+491701234567","text":"hi","validity":"2"}`, `validity "2"`},
		{"validity over 63 weeks", `{"to":"+491701234567","text":"hi","validity":"20000h"}`, `validity "20000h0m0s"`},
		{"unknown field", `{"to":"+491701234567","text":"hi","dlr":1}`, `dlr`},
		{"not JSON", `to=1`, `body`},
		{"empty body", ``, `body`},
		{"body too big", `{"to":"+491701234567","text":"` + strings.Repeat("a", MaxBody) + `"}`, `body "over 65536 bytes": is longer than 64 KiB`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b, _ := e.do("alice", "POST", "/sms", tt.body)
			got := decodeJSON[apiError](t, b)
			if status != http.StatusBadRequest || got.Status != status || !strings.HasPrefix(got.Message, tt.field) {
				t.Errorf("POST /sms = %d %s, want 400 with a message starting %q", status, b, tt.field)
			}
		})
	}
	if n := e.outboxSize(); n != 0 {
		t.Errorf("outbox holds %d messages after refusals, want 0", n)
	}
	var rows int
	must(t, e.jn.QueryRow(context.Background(), `SELECT COUNT(*) FROM smsapi_messages`).Scan(&rows))
	if rows != 0 {
		t.Errorf("smsapi_messages holds %d rows after refusals, want 0", rows)
	}
}

// TestSendAccepts: 202 with one entry per recipient, in the outbox
// before any modem, scheduled when at is ahead.
func TestSendAccepts(t *testing.T) {
	e := newEnv(t, nil)
	acc := e.send("alice", `{"to":["+49 170 1234567","0170 7654321"],"text":"`+strings.Repeat("x", 200)+`","priority":"P1","validity":"2h","flash":true}`)
	if len(acc) != 2 || acc[0].To != "+491701234567" || acc[0].Parts != 2 || acc[0].State != "queued" || acc[1].ID <= acc[0].ID {
		t.Errorf("accepted = %+v, want two queued messages of 2 parts", acc)
	}
	later := e.send("alice", `{"to":"+491701234567","text":"later","at":"2026-11-30T08:00:00Z"}`)
	if later[0].State != "scheduled" {
		t.Errorf("state with a future at = %s, want scheduled", later[0].State)
	}
	m, err := e.box.SMS(context.Background(), later[0].ID)
	if err != nil || m.State != "queued" || !m.NotBefore.Equal(time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("outbox message = %+v, %v, want queued not before the 30th", m, err)
	}
}

// TestSendRights: only users given the right send; the refusal says who
// can grant it; a server without users sends nothing.
func TestSendRights(t *testing.T) {
	e := newEnv(t, nil)
	status, b, _ := e.do("carol", "POST", "/sms", `{"to":"+491701234567","text":"hi"}`)
	if got := decodeJSON[apiError](t, b); status != http.StatusForbidden || !strings.Contains(got.Message, "calq users set carol --sms") {
		t.Errorf("carol's POST /sms = %d %s, want 403 naming calq users set carol --sms", status, b)
	}
	_, err := e.svc.Send(context.Background(), users.User{}, Request{To: []string{"+491701234567"}, Text: "hi"})
	if !errors.Is(err, ErrNotAllowed) {
		t.Errorf("Send as no user = %v, want ErrNotAllowed", err)
	}
	if n := e.outboxSize(); n != 0 {
		t.Errorf("outbox holds %d messages, want 0", n)
	}
}

// TestSendLimits: over the rate or the daily quota is 429 with
// Retry-After and a message naming the limit and its reset; the next
// minute, or the next day, fits again.
func TestSendLimits(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Rate, o.Quota = 2, 3 })
	body := `{"to":"+491701234567","text":"hi"}`
	e.send("alice", body)
	e.send("alice", body)
	status, b, h := e.do("alice", "POST", "/sms", body)
	if got := decodeJSON[apiError](t, b); status != http.StatusTooManyRequests || h.Get("Retry-After") != "60" ||
		got.Message != "SMS rate of 2 reached; it resets at 2026-11-29T10:01:00Z" {
		t.Errorf("third POST in a minute = %d %s Retry-After %q, want 429 naming the rate, Retry-After 60", status, b, h.Get("Retry-After"))
	}
	e.send("bob", body) // the limits are per user
	e.clock.Set(t0.Add(time.Minute + time.Second))
	e.send("alice", body)
	status, b, h = e.do("alice", "POST", "/sms", body)
	if got := decodeJSON[apiError](t, b); status != http.StatusTooManyRequests || h.Get("Retry-After") != "50339" ||
		!strings.HasPrefix(got.Message, "SMS daily quota of 3 reached; it resets at 2026-11-30T00:00:00Z") {
		t.Errorf("fourth POST of the day = %d %s Retry-After %q, want 429 naming the daily quota", status, b, h.Get("Retry-After"))
	}
	status, b, _ = e.do("bob", "POST", "/sms", `{"to":["+491701234567","+491701234568","+491701234569"],"text":"hi"}`)
	if got := decodeJSON[apiError](t, b); status != http.StatusBadRequest || got.Message != `to "3 recipients": is more than the user's limit of 2 messages a minute` {
		t.Errorf("POST of more recipients than the rate = %d %s, want 400: waiting would not help", status, b)
	}
	e.clock.Set(time.Date(2026, 11, 30, 0, 0, 1, 0, time.UTC))
	e.send("alice", body)
	must(t, e.users.SetSMSRights(context.Background(), "alice", users.SMSRights{Allowed: true, Quota: 100, Rate: 1}))
	if status, _, _ := e.do("alice", "POST", "/sms", body); status != http.StatusTooManyRequests {
		t.Errorf("POST over the user's own rate of 1 = %d, want 429", status)
	}
	if n := e.outboxSize(); n != 5 {
		t.Errorf("outbox holds %d messages, want the 5 accepted", n)
	}
}

// TestSendLimitsConcurrent: requests at once never share the last place.
func TestSendLimitsConcurrent(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Rate, o.Quota = 1000, 5 })
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Go(func() { statuses[i], _, _ = e.do("alice", "POST", "/sms", `{"to":"+491701234567","text":"hi"}`) })
	}
	wg.Wait()
	accepted := 0
	for _, s := range statuses {
		if s == http.StatusAccepted {
			accepted++
		}
	}
	if accepted != 5 || e.outboxSize() != 5 {
		t.Errorf("accepted %d of 20 concurrent requests, outbox %d, want 5 and 5", accepted, e.outboxSize())
	}
}

// TestSendNoPush: a server started with --no-webhooks calls no URL, so a
// send that names one is refused (400 naming it) and nothing is queued,
// as its conversions refuse a webhook; a send without one goes.
func TestSendNoPush(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.NoPush = true })
	status, b, _ := e.do("alice", "POST", "/sms", `{"to":"+491701234567","text":"hi","reportUrl":"https://example.com/r"}`)
	if got := decodeJSON[apiError](t, b); status != http.StatusBadRequest || !strings.HasPrefix(got.Message, `reportUrl "https://example.com/r"`) || !strings.Contains(got.Message, "--no-webhooks") {
		t.Errorf("POST /sms with a reportUrl = %d %s, want 400 naming it and --no-webhooks", status, b)
	}
	if n := e.outboxSize(); n != 0 {
		t.Errorf("outbox holds %d messages after the refusal, want 0", n)
	}
	if acc := e.send("alice", `{"to":"+491701234567","text":"hi"}`); len(acc) != 1 {
		t.Errorf("a send without a URL: %+v, want one message", acc)
	}
}
