package smsapi

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/internal/pgtest"
	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/sched/journal"
	"calq/sms/store"
)

// TestSharedOutbox: on a shared PostgreSQL outbox (modems on other
// hosts), the Service queues there, keeps its senders and pushes in its
// own journal, cancels and pushes the report a daemon elsewhere filed;
// another server on the same outbox does not see the message.
func TestSharedOutbox(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	rc := newReceiver(t)
	open := func(name string) (*Service, *store.Store) {
		pg, err := store.OpenPG(ctx, srv.URL, store.PGOptions{})
		must(t, err)
		t.Cleanup(func() { pg.Close() })
		box, err := store.Open(ctx, pg)
		must(t, err)
		jn, err := journal.Open(ctx, filepath.Join(t.TempDir(), name+".db"), journal.Options{})
		must(t, err)
		t.Cleanup(func() { jn.Close() })
		us, err := users.Open(ctx, jn)
		must(t, err)
		_, err = us.Add(ctx, users.User{Name: "alice"})
		must(t, err)
		must(t, us.SetSMSRights(ctx, "alice", users.SMSRights{Allowed: true}))
		policy, err := webhook.NewPolicy([]string{"127.0.0.0/8"})
		must(t, err)
		svc, err := New(ctx, Options{Store: box, Journal: jn, Rights: us, Policy: policy})
		must(t, err)
		return svc, box
	}
	a, box := open("a")
	b, _ := open("b")
	alice := users.User{Name: "alice"}
	acc, err := a.Send(ctx, alice, Request{To: []string{"+491701234567", "+491701234568"}, Text: "hi",
		Push: Push{Kind: PushJSON, URL: rc.URL}})
	must(t, err)
	if _, err := b.Get(ctx, alice, acc[0].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get on another server = %v, want ErrNotFound", err)
	}
	if m, err := a.Cancel(ctx, alice, acc[1].ID); err != nil || m.State != store.SMSCancelled {
		t.Errorf("Cancel = %+v, %v, want cancelled", m.State, err)
	}
	_, err = box.SMSPartAccepted(ctx, acc[0].ID, 1, "gsm0", 7)
	must(t, err)
	_, err = box.AddInboxEntry(ctx, store.InboxEntry{Kind: store.KindReport, Modem: "gsm0", Sender: "+491701234567", MR: 7, ST: 0,
		Received: time.Now()}, nil)
	must(t, err)
	_, err = a.round(ctx)
	must(t, err)
	var got []string
	for _, e := range rc.events() {
		got = append(got, e.Type+":"+e.State)
	}
	slices.Sort(got)
	want := "sms.accepted:accepted sms.final:cancelled sms.final:delivered sms.report:delivered"
	if strings.Join(got, " ") != want {
		t.Errorf("pushes = %v, want %s", got, want)
	}
}
