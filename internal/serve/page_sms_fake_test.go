package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/sms"
	"calq/sms/store"
)

// fakeSMS is an SMSPages in memory that records what the pages ask: the
// interface is the contract between the pages and SMS over HTTP
// (*smsapi.Service implements it for calq serve). Its lists are what a
// test puts in them; Send records the request and answers sendErr, or
// adds a queued message per recipient.
type fakeSMS struct {
	mu       sync.Mutex
	allowed  map[string]bool
	sent     []sentCall
	sendErr  error
	outbox   []smsapi.Message
	inbox    []smsapi.Inbound
	modems   []sms.DaemonModem
	counts   store.Counts
	listErr  error
	modemErr error
}

type sentCall struct {
	User string
	Req  smsapi.Request
}

func newFakeSMS(allowed ...string) *fakeSMS {
	f := &fakeSMS{allowed: map[string]bool{}}
	for _, u := range allowed {
		f.allowed[u] = true
	}
	return f
}

func (f *fakeSMS) Allowed(ctx context.Context, u users.User) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.allowed[u.Name], nil
}

func (f *fakeSMS) Send(ctx context.Context, u users.User, r smsapi.Request) ([]smsapi.Accepted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, sentCall{u.Name, r})
	if f.sendErr != nil {
		return nil, f.sendErr
	}
	var acc []smsapi.Accepted
	for _, to := range r.To {
		id := int64(len(f.outbox) + 1)
		f.outbox = append(f.outbox, smsapi.Message{ID: id, User: u.Name, To: to, Text: r.Text, State: "queued",
			Created: time.Now(), Updated: time.Now(), Parts: []smsapi.Part{{Seq: 1, State: "pending", Updated: time.Now()}}})
		acc = append(acc, smsapi.Accepted{ID: id, To: to, Parts: 1, State: "queued"})
	}
	return acc, nil
}

// List answers u's messages (an administrator's: all), newest first.
func (f *fakeSMS) List(ctx context.Context, u users.User, fl smsapi.Filter) (smsapi.Page[smsapi.Message], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listErr != nil {
		return smsapi.Page[smsapi.Message]{}, f.listErr
	}
	var out []smsapi.Message
	for _, m := range slices.Backward(f.outbox) {
		if (u.Admin || m.User == u.Name) && (fl.Before == 0 || m.ID < fl.Before) && len(out) < fl.Limit {
			out = append(out, m)
		}
	}
	return smsapi.Page[smsapi.Message]{Items: out}, nil
}

func (f *fakeSMS) Inbox(ctx context.Context, u users.User, fl smsapi.Filter) (smsapi.Page[smsapi.Inbound], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return smsapi.Page[smsapi.Inbound]{Items: slices.Clone(f.inbox)}, nil
}

func (f *fakeSMS) Modems(ctx context.Context) ([]sms.DaemonModem, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.modems), f.modemErr
}

func (f *fakeSMS) Queue(ctx context.Context) (store.Counts, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts, nil
}

// update changes message id with fn, as the daemon and the network would.
func (f *fakeSMS) update(id int64, fn func(*smsapi.Message)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.outbox {
		if f.outbox[i].ID == id {
			// A new slice of parts: the lists handed out keep theirs.
			f.outbox[i].Parts = slices.Clone(f.outbox[i].Parts)
			fn(&f.outbox[i])
			f.outbox[i].Updated = time.Now()
		}
	}
}

func (f *fakeSMS) calls() []sentCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// smsEventsOf opens the SMS page's stream as c and returns its events.
func smsEventsOf(t *testing.T, c *http.Client, base string) <-chan smsLists {
	t.Helper()
	resp, err := c.Get(base + "/messages/events")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("GET /messages/events: %d %s", resp.StatusCode, ct)
	}
	return sseEvents(t, resp)
}

// sseEvents reads the "lists" events of an SMS page's stream until it
// ends (the client's timeout bounds it).
func sseEvents(t *testing.T, resp *http.Response) <-chan smsLists {
	t.Helper()
	out := make(chan smsLists)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "lists":
				var l smsLists
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &l); err != nil {
					t.Errorf("event %q: %v", line, err)
					return
				}
				out <- l
			}
		}
	}()
	return out
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sendForm posts the SMS page's form as c and wants the page's answer
// to send the browser to the page again with the count queued.
func sendForm(t *testing.T, c *http.Client, base string, form url.Values, queued int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/messages", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := fmt.Sprintf("/messages?sent=%d", queued); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
		t.Fatalf("POST /messages: %d to %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), want)
	}
}
