package smsapi_test

import (
	"context"
	"errors"
	"testing"

	"calq/internal/serve"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/sched/journal"
	"calq/sms/store"
)

// The Service is what the server core takes of it.
var (
	_ serve.Surface  = (*smsapi.Service)(nil)
	_ serve.SMSPages = (*smsapi.Service)(nil)
	_ serve.Texter   = smsapi.Texts{}
)

// TestTexts: a conversion job's smsTo checks the user's right
// when the request comes, and queues the text when the job ends.
func TestTexts(t *testing.T) {
	ctx := context.Background()
	jn, err := journal.Open(ctx, t.TempDir()+"/calq.db", journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer jn.Close()
	box, err := store.Open(ctx, jn)
	check(t, err)
	us, err := users.Open(ctx, jn)
	check(t, err)
	alice, err := us.Add(ctx, users.User{Name: "alice"})
	check(t, err)
	bob, err := us.Add(ctx, users.User{Name: "bob"})
	check(t, err)
	check(t, us.SetSMSRights(ctx, "alice", users.SMSRights{Allowed: true}))
	svc, err := smsapi.New(ctx, smsapi.Options{Store: box, Journal: jn, Rights: us, Policy: &webhook.Policy{}})
	if err != nil {
		t.Fatal(err)
	}
	var tx serve.Texter = svc.Texts()
	if err := tx.Check(ctx, bob, []string{"+491701234567"}); !errors.Is(err, smsapi.ErrNotAllowed) {
		t.Errorf("Check as bob = %v, want ErrNotAllowed", err)
	}
	if err := tx.Check(ctx, alice, []string{"nobody"}); err == nil {
		t.Error("Check of a recipient that is no number = nil, want an error")
	}
	if err := tx.Send(ctx, alice, []string{"+491701234567"}, "batch 7 is done"); err != nil {
		t.Fatal(err)
	}
	ms, err := box.ListSMS(ctx, store.SMSFilter{})
	if err != nil || len(ms) != 1 || ms[0].Text != "batch 7 is done" || ms[0].State != store.SMSQueued {
		t.Errorf("outbox = %+v, %v, want the text queued", ms, err)
	}
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
