package smsapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"calq/internal/kannel"
	"calq/internal/serve/users"
)

// getter is a loopback dlr-url target: it records the queries of the
// GETs it takes.
type getter struct {
	*httptest.Server
	mu  sync.Mutex
	got []url.Values
}

func newGetter(t *testing.T) *getter {
	g := &getter{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("dlr-url called with %s, want GET", r.Method)
		}
		g.mu.Lock()
		g.got = append(g.got, r.URL.Query())
		g.mu.Unlock()
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *getter) calls() []url.Values {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]url.Values(nil), g.got...)
}

// TestPushKannel: a dlr-url is called with Kannel's codes for the types
// its dlr-mask selects: 8 when the network took a part, 1 from a report
// that says delivered, 16 for a message cancelled; none for the types
// the mask leaves out.
func TestPushKannel(t *testing.T) {
	g := newGetter(t)
	e := newEnv(t, nil)
	ctx := context.Background()
	alice := users.User{Name: "alice"}
	tmpl := g.URL + "/dlr?type=%d&id=%I&ref=%F&to=%P&smsc=%i&reply=%A"
	send := func(to string, mask int, report bool) int64 {
		acc, err := e.svc.Send(ctx, alice, Request{To: []string{to}, Text: "hi", Report: report,
			Push: Push{Kind: PushKannel, URL: tmpl, Mask: mask}})
		must(t, err)
		return acc[0].ID
	}
	delivered := send("+491701234567", kannel.SMSCAccepted|kannel.Delivered, true)
	e.acceptAndReport(delivered, "+491701234567", 42, 0)
	cancelled := send("+491701234568", kannel.SMSCRejected|kannel.Delivered, true)
	_, err := e.box.CancelSMS(ctx, cancelled)
	must(t, err)
	quiet := send("+491701234569", kannel.Delivered, false) // no network type asked: final once sent, nothing to call
	e.acceptAndReport(quiet, "+491701234569", 43, -1)
	_, err = e.svc.round(ctx)
	must(t, err)
	byType := map[string]url.Values{}
	var order []string // of the delivered message's calls
	for _, q := range g.calls() {
		byType[q.Get("type")+"/"+q.Get("id")] = q
		if q.Get("id") == itoa(delivered) {
			order = append(order, q.Get("type"))
		}
	}
	if fmt.Sprint(order) != "[8 1]" {
		t.Errorf("the delivered message's calls, by type: %v, want [8 1]: accepted before delivered", order)
	}
	if r := byType["1/"+itoa(delivered)].Get("reply"); r != "id:42 stat:DELIVRD err:000" {
		t.Errorf("%%A of the report = %q, want an SMSC's receipt", r)
	}
	if len(byType) != 3 {
		t.Errorf("dlr-url calls = %v, want 3", g.calls())
	}
	for _, tt := range []struct {
		key, ref, to string
	}{
		{"8/" + itoa(delivered), "42", "+491701234567"},
		{"1/" + itoa(delivered), "", "+491701234567"},
		{"16/" + itoa(cancelled), "", "+491701234568"},
	} {
		q, ok := byType[tt.key]
		if !ok || q.Get("to") != tt.to || tt.ref != "" && q.Get("ref") != tt.ref {
			t.Errorf("call %s = %v, %v, want to %s ref %q", tt.key, q, ok, tt.to, tt.ref)
		}
	}
	var watching int
	must(t, e.jn.QueryRow(ctx, `SELECT COUNT(*) FROM smsapi_messages WHERE watching = 1`).Scan(&watching))
	if watching != 0 {
		t.Errorf("%d messages still watched, want none: all three are final", watching)
	}
	for _, bad := range []string{g.URL + "/dlr?x=%z", "http://10.0.0.1/dlr?type=%d"} {
		if _, err := e.svc.Send(ctx, alice, Request{To: []string{"+491701234567"}, Text: "hi",
			Push: Push{Kind: PushKannel, URL: bad, Mask: 1}}); statusOf(err) != http.StatusBadRequest {
			t.Errorf("Send with dlr-url %q = %v, want a 400", bad, err)
		}
	}
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }
