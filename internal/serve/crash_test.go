package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"calq/convert/pdf"
	"calq/internal/serve/jobs"
)

// TestCrashedJobs: at its start, calq serve counts the death that left a
// job running; a job it died running twice ends failed with the reason,
// and its files are removed, instead of running again. A queued job, or
// one a stop put back in the queue, is no crash.
func TestCrashedJobs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	js := jobStore(t, dir)
	data := filepath.Join(dir, "data")
	opts, _ := json.Marshal(Task{Post: pdf.Post{Rotate: &pdf.Rotation{Angle: 90}}})
	pages := filepath.Join(repoTestdata, "convert", "pages_3.pdf")
	tests := []struct {
		id      string
		prior   func(id string) // what the journal holds of the job
		state   jobs.State
		crashes int
		err     string
	}{
		{"queued", func(string) {}, jobs.Done, 0, ""},
		{"requeued", func(id string) { js.Start(ctx, id); js.Requeue(ctx, id) }, jobs.Done, 0, ""},
		{"running once", func(id string) { js.Start(ctx, id) }, jobs.Done, 1, ""},
		{"running at a second death", func(id string) { js.Start(ctx, id); js.Crashed(ctx, id); js.Start(ctx, id) },
			jobs.Failed, 2, "calq serve died 2 times while converting this job (killed, or crashed); it is not run again"},
	}
	for _, tt := range tests {
		in := filepath.Join(data, "jobs", tt.id, inputDirName)
		os.MkdirAll(in, 0o700)
		b, _ := os.ReadFile(pages)
		os.WriteFile(filepath.Join(in, "0001.pdf"), b, 0o600)
		job := &jobs.Job{ID: tt.id, Route: routeRotate, Request: jobs.Request{Options: opts,
			Files: []jobs.File{{Name: "p.pdf", Stored: "0001.pdf", Size: int64(len(b))}}}}
		if err := js.Add(ctx, job); err != nil {
			t.Fatal(err)
		}
		tt.prior(tt.id)
	}
	s, err := New(Options{Data: data, Jobs: js})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Stop(0)
	for _, tt := range tests {
		got := waitFinal(t, s, tt.id)
		if got.State != tt.state || got.Crashes != tt.crashes || !strings.Contains(got.Error, tt.err) {
			t.Errorf("%s: got %s with %d crashes, %q; want %s with %d, %q", tt.id, got.State, got.Crashes, got.Error,
				tt.state, tt.crashes, tt.err)
		}
		if _, err := os.Stat(filepath.Join(data, "jobs", tt.id, inputDirName)); tt.state == jobs.Failed && !os.IsNotExist(err) {
			t.Errorf("%s: its uploads stay after it failed (%v)", tt.id, err)
		}
	}
}

// waitFinal waits for job id's end through the server.
func waitFinal(t *testing.T, s *Server, id string) jobs.Job {
	t.Helper()
	s.mu.Lock()
	r := s.running[id]
	s.mu.Unlock()
	if r != nil {
		<-r.done
	}
	j, err := s.opts.Jobs.Get(context.Background(), "*", id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}
