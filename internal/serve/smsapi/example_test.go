package smsapi_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/sched/journal"
	"calq/sms/store"
)

// A user given the right sends; the messages are in the outbox at once,
// for whichever daemon holds the modems.
func ExampleService_Send() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "calq-example-")
	defer os.RemoveAll(dir)
	jn, err := journal.Open(ctx, filepath.Join(dir, "calq.db"), journal.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer jn.Close()
	box, _ := store.Open(ctx, jn)
	us, _ := users.Open(ctx, jn)
	alice, _ := us.Add(ctx, users.User{Name: "alice"})
	_ = us.SetSMSRights(ctx, "alice", users.SMSRights{Allowed: true, Quota: 100})
	svc, err := smsapi.New(ctx, smsapi.Options{Store: box, Journal: jn, Rights: us, Policy: &webhook.Policy{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	acc, err := svc.Send(ctx, alice, smsapi.Request{To: []string{"+49 170 1234567"}, Text: "The batch is done."})
	fmt.Printf("%+v %v\n", acc, err)
	q, _ := svc.Queue(ctx)
	fmt.Println(q.Outbox)
	// Output:
	// [{ID:1 To:+491701234567 Parts:1 State:queued}] <nil>
	// map[queued:1]
}
