package serve

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"calq/internal/serve/jobs"
)

// addJob records a finished job of owner with files named n.docx, those
// in failed failing for reason: what a page's job leaves (done, its
// failed files marked) or an API job that failed whole.
func addJob(t *testing.T, ts *testServer, id, owner string, state jobs.State, n int, failed map[int]string, msg string) {
	t.Helper()
	ctx := context.Background()
	j := &jobs.Job{ID: id, Owner: owner, Route: routeConvert, Created: time.Now().Add(-time.Minute)}
	for i := range n {
		name := fmt.Sprintf("%02d.docx", i+1)
		j.Request.Files = append(j.Request.Files, jobs.File{Name: name, Stored: fmt.Sprintf("%d.docx", i), Size: 1000})
		f := jobs.FileState{Name: name, State: jobs.FileDone}
		if r, ok := failed[i]; ok {
			f = jobs.FileState{Name: name, State: jobs.FileFailed, Reason: r}
		}
		j.Files = append(j.Files, f)
	}
	if err := ts.Jobs.Add(ctx, j); err != nil {
		t.Fatal(err)
	}
	if err := ts.Jobs.SetFiles(ctx, id, j.Files); err != nil {
		t.Fatal(err)
	}
	var res *jobs.Result
	if state == jobs.Done {
		res = &jobs.Result{Path: "result.zip", ContentType: contentTypeZip, Name: id + ".zip"}
		for _, f := range j.Files {
			if f.State == jobs.FileDone {
				res.Files = append(res.Files, strings.TrimSuffix(f.Name, ".docx")+".pdf")
			}
		}
	}
	if _, err := ts.Jobs.Finish(ctx, id, state, res, msg, 0); err != nil {
		t.Fatal(err)
	}
}

// TestPartialJobPages: a job of 13 files of which 4 failed reads "done,
// some files failed", never a plain "done", in the history, the log and
// its page; the failed filter finds it with the jobs that failed whole,
// and the partial filter finds it alone. A failure's reason shows once.
func TestPartialJobPages(t *testing.T) {
	ts := pageServer(t, nil)
	four := map[int]string{1: "the document is damaged", 4: "the document is damaged", 7: "the document is damaged", 10: "the document is damaged"}
	addJob(t, ts, "partial00000001", "alice", jobs.Done, 13, four, "")
	addJob(t, ts, "alldone00000002", "alice", jobs.Done, 2, nil, "")
	addJob(t, ts, "failed000000003", "alice", jobs.Failed, 1, map[int]string{0: "the password does not open the document"},
		"01.docx: the password does not open the document")
	c := browserClient(t)
	signIn(t, c, ts.URL, "alice", "alice-secret-pw")
	root := browserClient(t)
	signIn(t, root, ts.URL, "root", "root-secret-pw")

	tests := []struct {
		name   string
		c      *http.Client
		path   string
		has    []string
		hasNot []string
	}{
		{"history, every job", c, "/history", []string{"done, some files failed 4 failed", "02.docx (the document is damaged)"}, nil},
		{"history, failed", c, "/history?state=failed", []string{"2 jobs", "done, some files failed", "01.docx (the password does not open the document) failed"}, nil},
		{"history, partial", c, "/history?state=partial", []string{"1 job", "done, some files failed"}, []string{"01.docx (the password"}},
		{"history, done", c, "/history?state=done", []string{"1 job"}, []string{"some files failed"}},
		{"log, failed", root, "/admin/log?state=failed", []string{"2 jobs", "alice", "done, some files failed"}, nil},
		{"log, partial", root, "/admin/log?state=partial&user=alice", []string{"1 job", "done, some files failed"}, nil},
		{"the job's page", c, "/job/partial00000001", []string{"done, some files failed · 13 of 13 files finished · 4 files failed",
			"02.docx " + humanBytes(1000) + " failed the document is damaged"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := pageGet(t, tt.c, ts.URL+tt.path, nil)
			text := textOf(body)
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d\n%s", tt.path, status, text)
			}
			for _, want := range tt.has {
				if !strings.Contains(text, want) {
					t.Errorf("GET %s does not read %q:\n%s", tt.path, want, text)
				}
			}
			for _, not := range tt.hasNot {
				if strings.Contains(text, not) {
					t.Errorf("GET %s reads %q:\n%s", tt.path, not, text)
				}
			}
			if n := strings.Count(text, "the password does not open the document"); n > 1 {
				t.Errorf("GET %s says a reason %d times:\n%s", tt.path, n, text)
			}
		})
	}
}
