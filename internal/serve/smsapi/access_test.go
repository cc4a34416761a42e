package smsapi

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"calq/sms/store"
)

// TestIsolation: another user's message is 404 on GET and DELETE (never
// 403), absent from the lists and inboxes; an administrator sees all.
func TestIsolation(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	mine := e.send("alice", `{"to":"+491701234567","text":"alice's"}`)[0].ID
	e.send("bob", `{"to":"+491701234567","text":"bob's"}`)
	for _, modem := range []string{"modem-alice", "modem-bob"} {
		_, err := e.box.AddInboxEntry(ctx, store.InboxEntry{Kind: store.KindMessage, Modem: modem, Sender: "+4930123456", Text: "to " + modem, Received: t0}, nil)
		must(t, err)
	}
	path := fmt.Sprintf("/sms/%d", mine)
	tests := []struct {
		name, user, method, path string
		want                     int
	}{
		{"owner gets", "alice", "GET", path, http.StatusOK},
		{"other user gets", "bob", "GET", path, http.StatusNotFound},
		{"other user cancels", "bob", "DELETE", path, http.StatusNotFound},
		{"admin gets", "root", "GET", path, http.StatusOK},
		{"no such id", "alice", "GET", "/sms/999", http.StatusNotFound},
		{"id not a number", "alice", "GET", "/sms/x1", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if status, b, _ := e.do(tt.user, tt.method, tt.path, ""); status != tt.want {
				t.Errorf("%s %s as %s = %d %s, want %d", tt.method, tt.path, tt.user, status, b, tt.want)
			}
		})
	}
	if m := e.getSMS(mine); m.State != store.SMSQueued {
		t.Errorf("state after bob's DELETE = %s, want queued", m.State)
	}
	lists := []struct {
		user, path string
		want       []string
	}{
		{"alice", "/sms", []string{"alice's"}},
		{"bob", "/sms", []string{"bob's"}},
		{"carol", "/sms", nil},
		{"root", "/sms", []string{"bob's", "alice's"}},
		{"alice", "/sms/inbox", []string{"to modem-alice"}},
		{"bob", "/sms/inbox", []string{"to modem-bob"}},
		{"carol", "/sms/inbox", nil},
		{"root", "/sms/inbox", []string{"to modem-bob", "to modem-alice"}},
		{"root", "/sms/inbox?from=030123456", []string{"to modem-bob", "to modem-alice"}},
		{"root", "/sms/inbox?from=%2B4930999999", nil},
	}
	for _, l := range lists {
		status, b, _ := e.do(l.user, "GET", l.path, "")
		page := decodeJSON[Page[struct{ Text string }]](t, b)
		var got []string
		for _, it := range page.Items {
			got = append(got, it.Text)
		}
		if status != http.StatusOK || fmt.Sprint(got) != fmt.Sprint(l.want) {
			t.Errorf("GET %s as %s = %d %v, want %v", l.path, l.user, status, got, l.want)
		}
	}
}

// TestListFiltersAndPages: state and to filter, pages follow next.
func TestListFiltersAndPages(t *testing.T) {
	e := newEnv(t, nil)
	var ids []int64
	for i := range 5 {
		ids = append(ids, e.send("alice", fmt.Sprintf(`{"to":"+4917012345%02d","text":"m%d"}`, i, i))[0].ID)
	}
	_, err := e.box.CancelSMS(context.Background(), ids[1])
	must(t, err)
	tests := []struct {
		query string
		want  string
		next  int64
	}{
		{"", "[m4 m3 m2 m1 m0]", 0},
		{"?limit=2", "[m4 m3]", ids[3]},
		{fmt.Sprintf("?limit=2&before=%d", ids[3]), "[m2 m1]", ids[1]},
		{"?state=cancelled", "[m1]", 0},
		{"?to=0049%20170%201234502", "[m2]", 0},
		{"?since=2026-11-29T11:00:00Z", "[]", 0},
	}
	for _, tt := range tests {
		status, b, _ := e.do("alice", "GET", "/sms"+tt.query, "")
		page := decodeJSON[Page[Message]](t, b)
		got := []string{}
		for _, m := range page.Items {
			got = append(got, m.Text)
		}
		if status != http.StatusOK || fmt.Sprint(got) != tt.want || page.Next != tt.next {
			t.Errorf("GET /sms%s = %d %v next %d, want %s next %d", tt.query, status, got, page.Next, tt.want, tt.next)
		}
	}
	if status, b, _ := e.do("alice", "GET", "/sms?since=yesterday", ""); status != http.StatusBadRequest {
		t.Errorf("GET /sms?since=yesterday = %d %s, want 400", status, b)
	}
}

// TestCancel: a message no part of which is with a modem is cancelled
// (again: the same answer); one with a part being sent is 409.
func TestCancel(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	acc := e.send("alice", `{"to":["+491701234567","+491701234568"],"text":"hi"}`)
	for range 2 {
		status, b, _ := e.do("alice", "DELETE", fmt.Sprintf("/sms/%d", acc[0].ID), "")
		if m := decodeJSON[Message](t, b); status != http.StatusOK || m.State != store.SMSCancelled || m.ID != acc[0].ID {
			t.Errorf("DELETE = %d %s, want 200 with the cancelled message", status, b)
		}
	}
	must(t, e.box.SMSPartSending(ctx, acc[1].ID, 1, "gsm0"))
	status, b, _ := e.do("alice", "DELETE", fmt.Sprintf("/sms/%d", acc[1].ID), "")
	if status != http.StatusConflict {
		t.Errorf("DELETE of a message being sent = %d %s, want 409", status, b)
	}
	if m := e.getSMS(acc[1].ID); m.State != store.SMSQueued {
		t.Errorf("state after a refused DELETE = %s, want queued", m.State)
	}
}

func (e *env) getSMS(id int64) store.SMSMessage {
	e.t.Helper()
	m, err := e.box.SMS(context.Background(), id)
	must(e.t, err)
	return m
}
