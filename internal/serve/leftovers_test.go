package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"calq/internal/serve/jobs"
)

// TestLeftoversSwept: what a server killed with SIGKILL leaves in
// --data is swept when the next one starts, as its state in the journal
// says: an upload that has no job goes; a pending job's half-written zip
// does not stand in the way of its run again; a done job keeps its
// result but not its uploads and passwords; a failed job keeps nothing;
// what is not a job's directory is left alone.
func TestLeftoversSwept(t *testing.T) {
	ctx := context.Background()
	ids := map[string]string{} // what → id
	var data string
	ts := newTestServer(t, func(o *Options) {
		data = o.Data
		for _, what := range []string{"orphan", "pending", "done", "failed"} {
			ids[what] = newID()
			plant(t, filepath.Join(o.Data, "jobs", ids[what]), map[string]string{
				"in/0001.txt": "first\n", "in/0002.txt": "second\n", secretsFile: `{"source":"pw"}`})
		}
		plant(t, filepath.Join(o.Data, "jobs", ids["pending"]), map[string]string{"result.zip.part": "PK half"})
		plant(t, filepath.Join(o.Data, "jobs", ids["done"]), map[string]string{"result.pdf": "%PDF-1.7\n"})
		plant(t, filepath.Join(o.Data, "jobs"), map[string]string{"notes/keep.txt": "not calq's\n"})
		for _, what := range []string{"pending", "done", "failed"} {
			j := &jobs.Job{ID: ids[what], Route: routeConvert, Request: jobs.Request{Options: json.RawMessage(`{}`),
				Files: []jobs.File{{Name: "first.txt", Stored: "0001.txt"}, {Name: "second.txt", Stored: "0002.txt"}}}}
			if err := o.Jobs.Add(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		finish(t, o.Jobs, ids["done"], jobs.Done, &jobs.Result{Path: "result.pdf", ContentType: contentTypePDF, Name: "r.pdf"})
		finish(t, o.Jobs, ids["failed"], jobs.Failed, nil)
	})
	jobDir := func(what string) string { return filepath.Join(data, "jobs", ids[what]) }
	for _, tt := range []struct {
		path string
		want bool
	}{
		{jobDir("orphan"), false},
		{filepath.Join(jobDir("done"), "result.pdf"), true},
		{filepath.Join(jobDir("done"), inputDirName), false},
		{filepath.Join(jobDir("done"), secretsFile), false},
		{jobDir("failed"), false},
		{filepath.Join(data, "jobs", "notes", "keep.txt"), true},
	} {
		if _, err := os.Stat(tt.path); (err == nil) != tt.want {
			t.Errorf("after the start, %s: exists %v, want %v", tt.path, err == nil, tt.want)
		}
	}
	v := finalView(t, ts.URL, ids["pending"])
	if v.State != jobs.Done {
		t.Fatalf("the pending job after the start: %s %q, want done", v.State, v.Error)
	}
	resp := get(t, ts.URL+"/jobs/"+ids["pending"]+"/result", "")
	if names, _ := zipEntries(t, body(t, resp)); len(names) != 2 || resp.StatusCode != http.StatusOK {
		t.Errorf("the pending job's result: %d, entries %v; want a zip of two PDFs", resp.StatusCode, names)
	}
}

// plant writes files (relative path → content) under dir.
func plant(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// finish records job id's end in st.
func finish(t *testing.T, js *jobs.Store, id string, st jobs.State, res *jobs.Result) {
	t.Helper()
	if ok, err := js.Finish(context.Background(), id, st, res, "", 0); err != nil || !ok {
		t.Fatalf("finish %s: %v, %v", id, ok, err)
	}
}
