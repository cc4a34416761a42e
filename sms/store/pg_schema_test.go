package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"calq/internal/pgdb"
	"calq/internal/pgtest"
	"calq/sched/pgqueue"
)

func openSharedStore(t *testing.T, url string, o PGOptions) *Store {
	t.Helper()
	pg, err := OpenPG(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	s, err := Open(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPGSchema: the shared outbox lives in calq's schema; an outbox and a
// queue an older calq left in public (search_path=public lays them out
// so) move there with their messages and jobs, each package moving its
// own, and public's calq_schema goes when both have.
func TestPGSchema(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	url := srv.CreateDB("legacy")
	old := openSharedStore(t, url+"&search_path=public", PGOptions{})
	id := addOne(t, old, SMSMessage{To: "+15550001", Text: "kept across the move", Parts: []SMSPart{part(1, 1)}})
	q, err := pgqueue.Open(ctx, url+"&search_path=public", pgqueue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
	smsTables := pgtest.Relations(t, url, "public")
	if !slices.Contains(smsTables, "sms_messages") || !slices.Contains(smsTables, "sms_reports") || !slices.Contains(smsTables, "jobs") {
		t.Fatalf("the old layout: public holds %v", smsTables)
	}

	q, err = pgqueue.Open(ctx, url, pgqueue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
	if got := pgtest.Relations(t, url, "public"); !slices.Contains(got, "sms_messages") || !slices.Contains(got, "calq_schema") || slices.Contains(got, "jobs") {
		t.Errorf("after the queue moved: public holds %v, want the sms tables and calq_schema only", got)
	}
	s := openSharedStore(t, url, PGOptions{})
	if m := getSMS(t, s, id); m.Text != "kept across the move" {
		t.Errorf("message %d after the move: %+v", id, m)
	}
	if next := addOne(t, s, SMSMessage{To: "+15550002", Text: "new", Parts: []SMSPart{part(1, 1)}}); next <= id {
		t.Errorf("a new message got id %d, want after %d: the sequence moved with its table", next, id)
	}
	if got := pgtest.Relations(t, url, "public"); len(got) != 0 {
		t.Errorf("public still holds %v", got)
	}
	if got := pgtest.Relations(t, url, "calq"); !slices.Contains(got, "sms_reports") || !slices.Contains(got, "jobs") {
		t.Errorf("schema calq holds %v, want the outbox's and the queue's", got)
	}
}

// TestPGLink: the store's reads and writes tell its Link of an outage
// once when it begins and once when it ends, however many fail between.
func TestPGLink(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	var lost, back int
	link := &pgdb.Link{Lost: func(error) { lost++ }, Back: func(time.Duration) { back++ }}
	s := openSharedStore(t, srv.URL, PGOptions{Link: link})
	srv.Stop()
	for range 5 {
		if _, err := s.AddSMS(ctx, []SMSMessage{{To: "+15550001", Text: "x", Parts: []SMSPart{part(1, 1)}}}); err == nil {
			t.Fatal("AddSMS with the server down succeeded")
		}
		if _, err := s.ListSMS(ctx, SMSFilter{}); err == nil {
			t.Fatal("ListSMS with the server down succeeded")
		}
	}
	srv.Start()
	if _, err := s.ListSMS(ctx, SMSFilter{}); err != nil {
		t.Fatal(err)
	}
	if lost != 1 || back != 1 {
		t.Errorf("%d Lost and %d Back reports for one outage, want 1 and 1", lost, back)
	}
}
