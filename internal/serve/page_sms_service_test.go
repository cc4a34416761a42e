package serve

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"calq/convert/contacts"
	bt "calq/internal/browsertest"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/sched/journal"
	"calq/sms/store"
)

// TestSMSPageWithService: the SMS page on a real smsapi.Service over the
// test server's journal: a form queues one message per recipient, a
// contact's name becomes its number, a refused form queues nothing and
// says why in a sentence, what a modem does to a message shows on the
// page and in its stream, and the monitoring page counts it.
func TestSMSPageWithService(t *testing.T) {
	ts, box := servicePageServer(t)
	ctx := context.Background()
	alice, bob := browserClient(t), browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	signIn(t, bob, ts.URL, "bob", "bob-secret-pw")
	if status, _ := pageGet(t, bob, ts.URL+"/messages", nil); status != http.StatusForbidden {
		t.Errorf("bob, without the right, GET /messages: %d, want 403", status)
	}

	outbox := func() int {
		ms, err := box.ListSMS(ctx, store.SMSFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(ms)
	}
	refused := []struct {
		name string
		form url.Values
		says string
	}{
		{"unknown contact", url.Values{"to": {"mum, eve"}, "text": {"hello"}}, `Nothing was sent: the recipient "eve" `},
		{"too long", url.Values{"to": {"mum"}, "text": {strings.Repeat("界", 67*255+1)}}, "Nothing was sent: the text is too long: a message takes at most 255 parts"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			status, page := pagePost(t, alice, ts.URL+"/messages", tt.form)
			text := html.UnescapeString(page)
			if status != http.StatusBadRequest || !strings.Contains(text, tt.says) || strings.Contains(text, "%!") {
				i := strings.Index(text, `id="error"`)
				t.Errorf("%d, want 400 saying %q; the page says %.300s", status, tt.says, text[max(i, 0):])
			}
			if i := strings.Index(text, `id="error">`); i >= 0 {
				t.Logf("the page says: %s", text[i+len(`id="error">`):i+strings.Index(text[i:], "</p>")])
			}
			if n := outbox(); n != 0 {
				t.Errorf("a refused form queued %d messages", n)
			}
		})
	}

	form := url.Values{"to": {"mum, +44 20 7946 0000"}, "text": {"会議は三時からです"}}
	sendForm(t, alice, ts.URL, form, 2)
	ms, err := box.ListSMS(ctx, store.SMSFilter{})
	if err != nil || len(ms) != 2 {
		t.Fatalf("the outbox holds %d messages (%v), want 2", len(ms), err)
	}
	tos := map[string]int64{}
	for _, m := range ms {
		tos[m.To] = m.ID
	}
	if tos["+4915111112222"] == 0 || tos["+442079460000"] == 0 {
		t.Fatalf("the outbox's recipients %v, want mum's number and +442079460000", tos)
	}
	_, page := pageGet(t, alice, ts.URL+"/messages", nil)
	if !strings.Contains(page, "会議は三時からです") || !strings.Contains(page, `data-state="queued"`) || !strings.Contains(page, `id="outbox" data-live="true"`) {
		t.Errorf("the page does not list the queued messages, live:\n%s", page)
	}

	// A modem sends mum's message, as the daemon records it.
	id := tos["+4915111112222"]
	if err := box.SMSPartSending(ctx, id, 1, "m1"); err != nil {
		t.Fatal(err)
	}
	if _, err := box.SMSPartAccepted(ctx, id, 1, "m1", 17); err != nil {
		t.Fatal(err)
	}
	first := <-smsEventsOf(t, alice, ts.URL)
	row := `<tr class="message" data-id="` + strconv.FormatInt(id, 10) + `" data-state="sent"`
	if !strings.Contains(first.Outbox, row) || !strings.Contains(first.Outbox, "ref 17") || !first.Live {
		t.Errorf("the stream's lists: want %s with ref 17, live (the other is queued):\n%s", row, first.Outbox)
	}

	root := browserClient(t)
	signIn(t, root, ts.URL, "root", "root-secret-pw")
	_, page = pageGet(t, root, ts.URL+"/admin/monitor", nil)
	for _, want := range []string{"<td>outbox</td><td>sent</td><td>1</td>", "<td>outbox</td><td>queued</td><td>1</td>", "No modems"} {
		if !strings.Contains(page, want) {
			t.Errorf("the monitoring page has no %q", want)
		}
	}
}

// servicePageServer is a page server whose SMS pages are a real
// smsapi.Service on its journal, with its outbox; alice may send and
// has mum's number in her address book.
func servicePageServer(t *testing.T) (*testServer, *store.Store) {
	t.Helper()
	var box *store.Store
	ts := pageServer(t, func(o *Options) {
		ctx := context.Background()
		jn := o.Journal.(*journal.Journal)
		var err error
		if box, err = store.Open(ctx, jn); err != nil {
			t.Fatal(err)
		}
		us := o.Users.(*users.Store)
		svc, err := smsapi.New(ctx, smsapi.Options{Store: box, Journal: jn, Rights: us,
			Book: contacts.Owners{Book: o.Contacts.(BookContacts).Book}})
		if err != nil {
			t.Fatal(err)
		}
		o.SMSPages = svc
	})
	ctx := context.Background()
	if err := ts.Users.SetSMSRights(ctx, "alice", users.SMSRights{Allowed: true}); err != nil {
		t.Fatal(err)
	}
	if err := ts.opts.Contacts.Set(ctx, "alice", Contact{Name: "mum", Phone: "+49 151 1111 2222"}); err != nil {
		t.Fatal(err)
	}
	return ts, box
}

// TestSMSPageWithServiceInBrowser: in a real browser on a real
// smsapi.Service, from the address book's link, a message written to a
// contact is queued with the contact's number, and the modem's
// acceptance shows on the page without a reload.
func TestSMSPageWithServiceInBrowser(t *testing.T) {
	ts, box := servicePageServer(t)
	ctx := context.Background()
	tab := bt.New(t).Tab(t)
	console := bt.Console(t, tab)
	browserSignIn(t, tab, ts.URL, "alice")
	if _, err := bt.Navigate(tab, ts.URL+"/contacts"); err != nil {
		t.Fatal(err)
	}
	if status, err := bt.ClickNavigate(tab, `a[href^="/messages?to=mum"]`); err != nil || status != 200 {
		t.Fatalf("the address book's Send SMS link: %d %v", status, err)
	}
	if v, err := bt.Eval[string](tab, `document.getElementById("sms-to").value`); err != nil || v != "mum" {
		t.Errorf("the recipients after the link: %q %v, want mum", v, err)
	}
	if err := bt.Fill(tab, "#sms-text", "Ich bin gleich da — 5 Minuten!"); err != nil {
		t.Fatal(err)
	}
	if status, err := bt.ClickNavigate(tab, "#sms-send"); err != nil || status != 200 {
		t.Fatalf("send: %d %v", status, err)
	}
	ms, err := box.ListSMS(ctx, store.SMSFilter{})
	if err != nil || len(ms) != 1 || ms[0].To != "+4915111112222" || ms[0].Text != "Ich bin gleich da — 5 Minuten!" {
		t.Fatalf("the outbox holds %+v (%v), want one message to mum's number", ms, err)
	}
	id := ms[0].ID
	if err := bt.WaitText(tab, "#notice", "Queued 1 message"); err != nil {
		t.Error(err)
	}
	if err := box.SMSPartSending(ctx, id, 1, "m1"); err != nil {
		t.Fatal(err)
	}
	if _, err := box.SMSPartAccepted(ctx, id, 1, "m1", 23); err != nil {
		t.Fatal(err)
	}
	row := `#outbox tr[data-id="` + strconv.FormatInt(id, 10) + `"]`
	if err := bt.WaitText(tab, row, "ref 23"); err != nil {
		t.Errorf("the modem's acceptance did not show without a reload: %v", err)
	}
	if st, _, err := bt.Attribute(tab, row, "data-state"); err != nil || st != "sent" {
		t.Errorf("the message's row says %q (%v), want sent", st, err)
	}
	for _, m := range console.Messages() {
		if strings.Contains(m, "Content Security Policy") || strings.HasPrefix(m, "exception") {
			t.Errorf("console: %s", m)
		}
	}
}
