package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"calq/sched"
	"calq/sched/journal"
)

func openStore(t *testing.T) (*Store, *journal.Journal) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calq.db")
	j, err := journal.Open(context.Background(), path, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	s, err := Open(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	return s, j
}

func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	req := Request{Files: []File{{Name: "a b.docx", Stored: "0001.docx", Size: 10}}, Options: json.RawMessage(`{"pdfa":2}`),
		Trace: "t-1", Filename: "out"}
	j := &Job{ID: "j1", Owner: "ann", Route: "libreoffice/convert", Class: sched.P1, Sync: true, Request: req}
	if err := s.Add(ctx, j); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, &Job{ID: "j2", Owner: "bob", Route: "pdfengines/merge", Request: Request{}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, &Job{ID: "j1", Owner: "bob"}); err == nil {
		t.Error("Add of an id twice: no error")
	}

	got, err := s.Get(ctx, "ann", "j1")
	if err != nil {
		t.Fatal(err)
	}
	want := Job{ID: "j1", Owner: "ann", Route: "libreoffice/convert", Class: sched.P1, State: Queued, Sync: true,
		Created: now, Request: req, Files: []FileState{{Name: "a b.docx", State: FileQueued}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %+v\nwant %+v", got, want)
	}
	// Another user's job is not found, like a job that does not exist:
	// no oracle. An administrator ("*") sees it.
	for _, c := range []struct{ owner, id string }{{"bob", "j1"}, {"ann", "nope"}, {"", "j1"}} {
		if _, err := s.Get(ctx, c.owner, c.id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q, %q) error = %v, want ErrNotFound", c.owner, c.id, err)
		}
	}
	if _, err := s.Get(ctx, "*", "j1"); err != nil {
		t.Errorf("Get(*, j1) = %v", err)
	}

	if ok, err := s.Start(ctx, "j1"); !ok || err != nil {
		t.Fatalf("Start = %v, %v", ok, err)
	}
	pending, err := s.Pending(ctx)
	if err != nil || len(pending) != 2 || pending[0].ID != "j1" || pending[0].State != Running {
		t.Fatalf("Pending = %+v, %v; want j1 running and j2", pending, err)
	}

	now = now.Add(time.Minute)
	res := &Result{Path: "result.pdf", ContentType: "application/pdf", Name: "out.pdf"}
	if ok, err := s.Finish(ctx, "j1", Done, res, "", 0); !ok || err != nil {
		t.Fatalf("Finish = %v, %v", ok, err)
	}
	// A final job stays as it is.
	if ok, err := s.Finish(ctx, "j1", Failed, nil, "late", 500); ok || err != nil {
		t.Errorf("Finish of a final job = %v, %v, want false", ok, err)
	}
	if ok, _ := s.Start(ctx, "j1"); ok {
		t.Error("Start of a final job = true")
	}
	got, _ = s.Get(ctx, "ann", "j1")
	if got.State != Done || !reflect.DeepEqual(got.Result, res) || !got.Finished.Equal(now) || !got.Started.Equal(now.Add(-time.Minute)) {
		t.Errorf("after Finish: %+v", got)
	}
	if ok, _ := s.Finish(ctx, "j2", Cancelled, nil, "the job was cancelled", 499); !ok {
		t.Error("Finish(j2) = false")
	}
	if pending, _ := s.Pending(ctx); len(pending) != 0 {
		t.Errorf("Pending after both ended = %d jobs", len(pending))
	}

	list, err := s.List(ctx, "ann", 10)
	if err != nil || len(list) != 1 || list[0].ID != "j1" {
		t.Errorf("List(ann) = %+v, %v", list, err)
	}
	if list, _ := s.List(ctx, "*", 10); len(list) != 2 {
		t.Errorf("List(*) = %d jobs, want 2", len(list))
	}
	old, err := s.Before(ctx, now.Add(time.Second))
	if err != nil || len(old) != 2 {
		t.Errorf("Before = %d, %v, want 2", len(old), err)
	}
	if err := s.Delete(ctx, "j1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "*", "j1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
}

// TestReopen: what a server killed and started again reads back.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "calq.db")
	j, err := journal.Open(ctx, path, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if err := s.Add(ctx, &Job{ID: id, Owner: "u", Route: "libreoffice/convert"}); err != nil {
			t.Fatal(err)
		}
	}
	s.Start(ctx, "a")
	s.Finish(ctx, "c", Done, &Result{Path: "result.pdf"}, "", 0)
	j.Close()

	j, err = journal.Open(ctx, path, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	s, err = Open(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := s.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range pending {
		ids = append(ids, p.ID+":"+string(p.State))
	}
	if want := []string{"a:running", "b:queued"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("Pending after reopening = %v, want %v", ids, want)
	}
}

// TestDeliveries: what a job still owes after its end survives a
// restart until it is delivered.
func TestDeliveries(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	for _, id := range []string{"a", "b", "c"} {
		if err := s.Add(ctx, &Job{ID: id, Owner: "u", Route: "libreoffice/convert"}); err != nil {
			t.Fatal(err)
		}
	}
	s.Finish(ctx, "a", Done, &Result{Path: "result.pdf"}, "", 0)
	s.Finish(ctx, "b", Failed, nil, "bad", 400)
	if err := s.SetPending(ctx, "a", []string{"webhook", "mail"}, ""); err != nil {
		t.Fatal(err)
	}
	s.SetPending(ctx, "b", []string{"webhook"}, "connection refused")
	s.SetPending(ctx, "c", []string{"webhook"}, "") // not final: not yet owed
	got, err := s.Undelivered(ctx)
	if err != nil || len(got) != 2 || got[0].ID != "a" || strings.Join(got[0].Pending, ",") != "webhook,mail" ||
		got[1].ID != "b" || got[1].DeliveryError != "connection refused" {
		t.Fatalf("Undelivered = %+v, %v", got, err)
	}
	s.SetPending(ctx, "a", nil, "")
	s.SetPending(ctx, "b", nil, "")
	if got, _ := s.Undelivered(ctx); len(got) != 0 {
		t.Errorf("Undelivered after all delivered = %+v", got)
	}
	if j, _ := s.Get(ctx, "u", "a"); len(j.Pending) != 0 || j.DeliveryError != "" {
		t.Errorf("job a after delivery: %+v", j)
	}
}
