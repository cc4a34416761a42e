package serve

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/sms"
	"calq/sms/pdu"
	"calq/sms/store"
)

// smsPageServer is a page server whose SMS pages read f; alice may send,
// bob may not, root is an administrator who may not either.
func smsPageServer(t *testing.T, f *fakeSMS) *testServer {
	t.Helper()
	ts := pageServer(t, func(o *Options) { o.SMSPages = f })
	book := ts.opts.Contacts
	ctx := context.Background()
	for _, c := range []Contact{{Name: "mum", Phone: "+491511112222"}, {Name: "boss", Address: "boss@example.com"},
		{Name: "山田", Address: "yamada@example.jp", Phone: "09012345678"}} {
		if err := book.Set(ctx, "alice", c); err != nil {
			t.Fatal(err)
		}
	}
	return ts
}

// smsAlice is an SMS page server over f and alice's signed-in client.
func smsAlice(t *testing.T, f *fakeSMS) (*testServer, *http.Client) {
	t.Helper()
	ts := smsPageServer(t, f)
	alice := browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	return ts, alice
}

// sampleModems are a modem that works, one on a roaming network with a
// weak signal, and one whose SIM refused its PIN.
func sampleModems() []sms.DaemonModem {
	return []sms.DaemonModem{
		{ModemStatus: sms.ModemStatus{Name: "m1", Device: "/dev/ttyUSB0", State: sms.ModemReady, Maker: "Quectel", Model: "EC25",
			Registered: true, Registration: "home", Signal: 17, Breaker: sms.BreakerClosed, BreakerSince: t1.Add(-time.Hour)}, PID: 4242, Host: "gw1", Updated: t1},
		{ModemStatus: sms.ModemStatus{Name: "m2", Device: "/dev/ttyUSB1", State: sms.ModemReady, Maker: "SIMCOM", Model: "SIM7600E",
			Registered: true, Registration: "roaming", Signal: 9, Breaker: sms.BreakerOpen, BreakerSince: t1.Add(-time.Minute)}, PID: 4242, Host: "gw1", Updated: t1},
		{ModemStatus: sms.ModemStatus{Name: "m3", Device: "/dev/ttyUSB2", State: sms.ModemPINRejected, Signal: -1,
			Error: "the SIM refused the PIN: calq sms modems --retry-pin m3 tries once more"}, PID: 4242, Host: "gw1", Updated: t1},
	}
}

var sampleCounts = store.Counts{Outbox: map[string]int{"queued": 3, "sent": 120, "failed": 2, "unknown": 1}, Inbox: 7, Reports: 110,
	ByModem: map[string]map[string]int{"m1": {"sent": 100, "failed": 1}, "m2": {"sent": 20, "failed": 1, "unknown": 1}}}

var t1 = time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)

func mr(n int) *int { return &n }

// sampleOutbox is a delivered message of two parts in Japanese, a failed
// one and a queued one.
func sampleOutbox() []smsapi.Message {
	return []smsapi.Message{
		{ID: 1, User: "alice", To: "+491511112222", Text: "会議は三時からです。資料を持ってきてください。", State: "sent", Modem: "m1",
			Created: t1, Updated: t1.Add(time.Minute), Parts: []smsapi.Part{
				{Seq: 1, State: "accepted", Modem: "m1", MR: mr(17), Updated: t1, Reports: []smsapi.Report{{Seq: 1, Status: 0, Outcome: "delivered", Discharged: t1.Add(30 * time.Second), Received: t1.Add(31 * time.Second)}}},
				{Seq: 2, State: "accepted", Modem: "m1", MR: mr(18), Updated: t1, Reports: []smsapi.Report{{Seq: 2, Status: 0, Outcome: "delivered", Received: t1.Add(32 * time.Second)}}}}},
		{ID: 2, User: "alice", To: "+4930123", Text: "Die Tür ist offen", State: "failed", Reason: "the network refused it: CMS ERROR 38 (network out of order)",
			Created: t1.Add(time.Hour), Updated: t1.Add(time.Hour), Parts: []smsapi.Part{{Seq: 1, State: "failed", Modem: "m2", Reason: "CMS ERROR 38"}}},
		{ID: 3, User: "bob", To: "+3312345", Text: "bob's own", State: "queued", Created: t1, Updated: t1},
	}
}

// TestSMSPageRender: the SMS page shows the form to a user allowed to
// send, with their contacts that have a phone number, their sent
// messages with each part, its modem, reference and reports, and the
// inbox; texts in any script are kept; nothing prints a format error.
func TestSMSPageRender(t *testing.T) {
	f := newFakeSMS("alice")
	f.outbox = sampleOutbox()
	f.inbox = []smsapi.Inbound{{ID: 9, Modem: "m1", From: "+491511112222", To: "+4915199999", Text: "了解です 👍", Received: t1, Parts: 1, Total: 1}}
	ts, alice := smsAlice(t, f)
	status, page := pageGet(t, alice, ts.URL+"/messages", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /messages: %d\n%s", status, page)
	}
	text := html.UnescapeString(page)
	for _, want := range []string{
		`id="nav-sms" aria-current="page">SMS</a>`,
		`<form class="card" method="post" action="/messages" id="sms-form">`,
		`<option value="mum">+491511112222</option>`, `<option value="山田">09012345678</option>`,
		"会議は三時からです。資料を持ってきてください。", `<span class="hint">ref 17</span>`, `<span class="hint">ref 18</span>`,
		`<div class="report" data-outcome="delivered">`, "the network refused it: CMS ERROR 38 (network out of order)",
		"了解です 👍", `<tr class="message" data-id="2" data-state="failed" data-delivery="">`,
		`<tr class="message" data-id="1" data-state="sent" data-delivery="delivered">`,
		`id="outbox" data-live="false"`, // every message is settled
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the SMS page has no %q", want)
		}
	}
	for _, bad := range []string{"%!", "bob's own", `<option value="boss">`, "0xc"} {
		if strings.Contains(text, bad) {
			t.Errorf("the SMS page holds %q", bad)
		}
	}
	if t.Failed() {
		t.Log(page)
	}
}

// TestSMSPageWho: the menu links to the SMS page for users allowed to
// send and for administrators; anyone else gets a 403 that says how to
// get the right, and an administrator who may not send sees the lists
// without the form. Without SMS, no link and a 404.
func TestSMSPageWho(t *testing.T) {
	f := newFakeSMS("alice")
	f.outbox = sampleOutbox()
	ts := smsPageServer(t, f)
	clients := map[string]*http.Client{}
	for _, n := range []string{"alice", "bob", "root"} {
		clients[n] = browserClient(t)
		signIn(t, clients[n], ts.URL, n, n+"-secret-pw")
	}
	tests := []struct {
		who    string
		status int
		link   bool
		want   string
	}{
		{"alice", 200, true, `id="sms-form"`},
		{"bob", 403, false, "Forbidden: you may not send SMS. An administrator gives the right with calq users set bob --sms."},
		{"root", 200, true, "bob&#39;s own"},
	}
	for _, tt := range tests {
		t.Run(tt.who, func(t *testing.T) {
			status, page := pageGet(t, clients[tt.who], ts.URL+"/messages", nil)
			if status != tt.status || !strings.Contains(page, tt.want) {
				t.Errorf("GET /messages as %s: %d, want %d with %q\n%s", tt.who, status, tt.status, tt.want, page)
			}
			_, conv := pageGet(t, clients[tt.who], ts.URL+"/contacts", nil)
			if got := strings.Contains(conv, `href="/messages"`); got != tt.link {
				t.Errorf("%s's menu links to the SMS page: %v, want %v", tt.who, got, tt.link)
			}
		})
	}
	if _, page := pageGet(t, clients["root"], ts.URL+"/messages", nil); strings.Contains(page, `id="sms-form"`) {
		t.Errorf("root, who may not send, is shown the form")
	}
	// The address book offers to write to a contact with a number, and
	// the link fills the form.
	_, page := pageGet(t, clients["alice"], ts.URL+"/contacts", nil)
	if !strings.Contains(page, `<a href="/messages?to=mum#sms-form">Send SMS</a>`) || strings.Contains(page, `/messages?to=boss`) {
		t.Errorf("alice's address book does not link mum, and only mum, to the SMS page:\n%s", page)
	}
	if _, page := pageGet(t, clients["alice"], ts.URL+"/messages?to=mum", nil); !strings.Contains(page, `id="sms-to" list="sms-contacts" value="mum"`) {
		t.Errorf("/messages?to=mum does not fill the recipients:\n%s", page)
	}

	off := pageServer(t, nil)
	c := browserClient(t)
	signIn(t, c, off.URL, "alice", "alice-secret-pw")
	if status, page := pageGet(t, c, off.URL+"/messages", nil); status != http.StatusNotFound || !strings.Contains(page, "calq serve sends no SMS") {
		t.Errorf("GET /messages without SMS: %d\n%s", status, page)
	}
	if _, page := pageGet(t, c, off.URL+"/contacts", nil); strings.Contains(page, `href="/messages"`) {
		t.Errorf("the menu links to the SMS page of a server without SMS")
	}
}

// TestSMSPageSend: the form becomes one Request (recipients split at
// commas, the browser's CRLF line ends as LF, the options), then the
// page lists the queued messages; what cannot be sent is said in a
// sentence, keeps the form, and reaches Send only when the form itself
// is complete.
func TestSMSPageSend(t *testing.T) {
	f := newFakeSMS("alice")
	ts, alice := smsAlice(t, f)
	form := url.Values{"to": {"mum, +44 20 7946 0000 ,"}, "text": {"Hallo\r\nMama 👋"}, "flash": {"on"}, "report": {"on"},
		"at": {"2026-12-24T18:00"}, "priority": {"P1"}}
	sendForm(t, alice, ts.URL, form, 2)
	want := smsapi.Request{To: []string{"mum", "+44 20 7946 0000"}, Text: "Hallo\nMama 👋", Flash: true, Report: true,
		At: time.Date(2026, 12, 24, 18, 0, 0, 0, time.Local), Priority: "P1"}
	if calls := f.calls(); len(calls) != 1 || calls[0].User != "alice" || !reflect.DeepEqual(calls[0].Req, want) {
		t.Errorf("Send calls %+v, want one by alice of %+v", calls, want)
	}
	_, page := pageGet(t, alice, ts.URL+"/messages?sent=2", nil)
	if !strings.Contains(page, "Queued 2 messages") || !strings.Contains(page, `id="outbox" data-live="true"`) {
		t.Errorf("the page after sending does not say so, or is not live:\n%s", page)
	}

	refusals := []struct {
		name    string
		form    url.Values
		sendErr error
		status  int
		says    string
		reaches bool // Send is called
	}{
		{"nothing", url.Values{"to": {" , "}, "text": {"  "}}, nil, 400,
			"Name at least one recipient: a phone number or a contact of your address book. Write the text to send: it is empty.", false},
		{"bad time", url.Values{"to": {"mum"}, "text": {"x"}, "at": {"tomorrow"}}, nil, 400,
			`The time to send at, "tomorrow", is not a date and time (2006-01-02T15:04).`, false},
		{"bad priority", url.Values{"to": {"mum"}, "text": {"x"}, "priority": {"P9"}}, nil, 400, `The priority "P9" is not one of P0, P1, P2 and P3.`, false},
		{"unknown contact", url.Values{"to": {"mum, eve"}, "text": {"x"}},
			&smsapi.InputError{Field: "to", Value: "eve", Err: errors.New(`is neither a number ("eve" is not a phone number: 'e' is not a digit) nor a contact with a phone number: no such contact`)}, 400,
			`Nothing was sent: the recipient "eve" is neither a number ("eve" is not a phone number: 'e' is not a digit) nor a contact with a phone number: no such contact.`, true},
		{"no recipient", url.Values{"to": {"mum"}, "text": {"x"}}, &smsapi.InputError{Field: "to", Err: errors.New("names no recipient")}, 400,
			"Nothing was sent: the list of recipients names no recipient.", true},
		{"text refused", url.Values{"to": {"mum"}, "text": {"x"}},
			&smsapi.InputError{Field: "text", Value: "x\x00", Err: errors.New("holds a NUL character")}, 400,
			"Nothing was sent: the text holds a NUL character.", true},
		{"too long", url.Values{"to": {"mum"}, "text": {"x"}},
			&smsapi.InputError{Field: "text", Value: "xxx", Err: fmt.Errorf("compose for +49151: pdu: %w (300)", pdu.ErrTooLong)}, 400,
			"Nothing was sent: the text is too long: a message takes at most 255 parts (the count under the text says how many it needs).", true},
		{"not allowed", url.Values{"to": {"mum"}, "text": {"x"}}, fmt.Errorf("%w: user alice was not given the right", smsapi.ErrNotAllowed), 403,
			"Nothing was sent: you may not send SMS. An administrator gives the right with calq users set alice --sms.", true},
		{"quota", url.Values{"to": {"mum"}, "text": {"x"}},
			&smsapi.QuotaError{Which: "daily quota", Limit: 100, Reset: time.Now().Add(time.Hour)}, 429,
			"Nothing was sent: your SMS daily quota of 100 is reached. It resets at ", true},
		{"server", url.Values{"to": {"mum"}, "text": {"x"}}, fmt.Errorf("add sms: %w", errors.New("disk I/O error")), 500,
			"Internal Server Error: calq serve could not queue the SMS; the cause is in its log. Nothing was sent.", true},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			f.mu.Lock()
			f.sent, f.sendErr = nil, tt.sendErr
			f.mu.Unlock()
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/messages", strings.NewReader(tt.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := alice.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b := new(strings.Builder)
			fmt.Fprint(b, readAll(t, resp))
			page := html.UnescapeString(b.String())
			if resp.StatusCode != tt.status || !strings.Contains(page, `<p class="error" role="alert" id="error">`+tt.says) {
				t.Errorf("%d, want %d saying %q\n%s", resp.StatusCode, tt.status, tt.says, page)
			}
			if tt.status == 429 && resp.Header.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After")
			}
			if strings.Contains(page, "%!") {
				t.Errorf("the page holds a format error")
			}
			if got := len(f.calls()) == 1; got != tt.reaches {
				t.Errorf("Send called: %v, want %v", got, tt.reaches)
			}
			if to := tt.form.Get("to"); strings.TrimSpace(to) != "," && !strings.Contains(page, `value="`+to+`"`) {
				t.Errorf("the form lost its recipients %q", to)
			}
		})
	}
}

// TestSMSPageLongest: the longest message there is (255 parts of
// UCS-2, each character three bytes of UTF-8 and nine in the form)
// reaches Send whole; a form larger than any message is refused.
func TestSMSPageLongest(t *testing.T) {
	f := newFakeSMS("alice")
	ts, alice := smsAlice(t, f)
	longest := strings.Repeat("界", 67*255)
	status, page := pagePost(t, alice, ts.URL+"/messages", url.Values{"to": {"mum"}, "text": {longest}})
	if calls := f.calls(); status != http.StatusSeeOther || len(calls) != 1 || calls[0].Req.Text != longest {
		t.Errorf("the longest message: %d, Send got %d calls, want its whole text\n%.500s", status, len(calls), page)
	}
	status, page = pagePost(t, alice, ts.URL+"/messages", url.Values{"to": {"mum"}, "text": {strings.Repeat("界", 30000)}})
	if status != http.StatusBadRequest || !strings.Contains(page, "The form could not be read") || len(f.calls()) != 1 {
		t.Errorf("a form larger than any message: %d, %d Send calls\n%.500s", status, len(f.calls()), page)
	}
}

// TestSMSPageCrossSite: a form posted from another site sends nothing.
func TestSMSPageCrossSite(t *testing.T) {
	f := newFakeSMS("alice")
	ts, alice := smsAlice(t, f)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/messages", strings.NewReader(url.Values{"to": {"mum"}, "text": {"x"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	if status, page := pageDo(t, alice, req); status != http.StatusForbidden || !strings.Contains(page, "came from another site") {
		t.Errorf("cross-site POST /messages: %d\n%s", status, page)
	}
	if calls := f.calls(); len(calls) != 0 {
		t.Errorf("a cross-site form was sent: %+v", calls)
	}
}

// TestSMSEvents: the stream sends the lists as the page draws them,
// again when a message changes, and ends once none may change.
func TestSMSEvents(t *testing.T) {
	f := newFakeSMS("alice")
	ts, alice := smsAlice(t, f)
	if _, err := f.Send(context.Background(), users.User{Name: "alice"}, smsapi.Request{To: []string{"+491511112222"}, Text: "平和"}); err != nil {
		t.Fatal(err)
	}
	events := smsEventsOf(t, alice, ts.URL)
	first := <-events
	if !first.Live || !strings.Contains(first.Outbox, `data-state="queued"`) || !strings.Contains(first.Outbox, "平和") {
		t.Fatalf("first event %+v, want the queued message, live", first)
	}
	f.update(1, func(m *smsapi.Message) {
		m.State = "sent"
		m.Parts[0].State, m.Parts[0].MR = "accepted", mr(42)
		m.Parts[0].Reports = []smsapi.Report{{Seq: 1, Outcome: "delivered", Received: time.Now()}}
	})
	last := <-events
	if last.Live || !strings.Contains(last.Outbox, `data-delivery="delivered"`) || !strings.Contains(last.Outbox, "ref 42") {
		t.Errorf("event after delivery %+v, want the delivered message, not live", last)
	}
	if e, ok := <-events; ok {
		t.Errorf("the stream went on after the last change: %+v", e)
	}
}

// TestMonitorModems: the monitoring page shows each modem the daemons
// hold (state, circuit breaker, registration, signal, its daemon) and the SMS queue; a
// modem list that cannot be read is a sentence in its place.
func TestMonitorModems(t *testing.T) {
	f := newFakeSMS()
	f.modems, f.counts = sampleModems(), sampleCounts
	ts := smsPageServer(t, f)
	root := browserClient(t)
	signIn(t, root, ts.URL, "root", "root-secret-pw")
	status, page := pageGet(t, root, ts.URL+"/admin/monitor", nil)
	text := html.UnescapeString(page)
	for _, want := range []string{`<tr data-modem="m1">`, "/dev/ttyUSB0", "registered", "(home)", "17 of 31 (\u221279\u00a0dBm)", "Quectel EC25",
		"gw1", "pid 4242", `<span class="state state-pin-rejected">pin rejected</span> <span class="reason">the SIM refused the PIN: calq sms modems --retry-pin m3 tries once more</span>`,
		"not registered", "not asked", "<h2>SMS queue</h2>", "<th>Breaker</th>",
		`<td class="breaker"><span class="state breaker-closed" title="takes messages">closed</span><div class="hint">since <time datetime="` + t1.Add(-time.Hour).Local().Format(time.RFC3339) + `">`,
		`<span class="state breaker-open" title="taken out after failures in a row, until its cooldown ends">open</span><div class="hint">since <time datetime="` + t1.Add(-time.Minute).Local().Format(time.RFC3339) + `">`,
		`<td class="breaker"><span class="hint">not recorded</span></td>`,
		`<td class="sent">100</td>`, `<td class="failed">1 <span class="hint">and 1 unknown</span></td>`, `<td class="sent">0</td>`, "<td>outbox</td><td>sent</td><td>120</td>", "<td>inbox</td><td>messages</td><td>7</td>"} {
		if !strings.Contains(text, want) {
			t.Errorf("the monitoring page has no %q", want)
		}
	}
	if status != 200 || strings.Contains(text, "%!") {
		t.Errorf("GET /admin/monitor: %d, or a format error\n%s", status, page)
	}
	f.mu.Lock()
	f.modemErr = errors.New("read the daemon view: connection refused")
	f.mu.Unlock()
	_, page = pageGet(t, root, ts.URL+"/admin/monitor", nil)
	if !strings.Contains(page, `<p class="error" id="modems-error">`) || !strings.Contains(page, "calq serve could not read the modems") {
		t.Errorf("a modem list that cannot be read is not said:\n%s", page)
	}
}

// TestDelivery: a message's reports, part by part, as one word.
func TestDelivery(t *testing.T) {
	rep := func(outcomes ...string) smsapi.Part {
		p := smsapi.Part{}
		for _, o := range outcomes {
			p.Reports = append(p.Reports, smsapi.Report{Outcome: o})
		}
		return p
	}
	tests := []struct {
		name  string
		parts []smsapi.Part
		want  string
	}{
		{"no parts", nil, ""},
		{"no reports", []smsapi.Part{rep(), rep()}, ""},
		{"all delivered", []smsapi.Part{rep("pending", "delivered"), rep("delivered")}, "delivered"},
		{"one waits", []smsapi.Part{rep("delivered"), rep()}, "pending"},
		{"one pending", []smsapi.Part{rep("delivered"), rep("pending")}, "pending"},
		{"one failed", []smsapi.Part{rep("delivered"), rep("pending", "failed")}, "not delivered"},
	}
	for _, tt := range tests {
		if got := delivery(smsapi.Message{Parts: tt.parts}); got != tt.want {
			t.Errorf("%s: delivery = %q, want %q", tt.name, got, tt.want)
		}
	}
}
