package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/serve/jobs"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/sched/journal"
)

// recordingTexter is a Texter that records what it is asked and hands
// each send to the test.
type recordingTexter struct {
	check func(to []string) error // nil: every recipient passes
	fail  error                   // what Send returns, after recording

	mu     sync.Mutex
	checks []string    // user: recipients
	sent   chan string // user: recipients: text
}

func newTexter() *recordingTexter { return &recordingTexter{sent: make(chan string, 10)} }

func (r *recordingTexter) Check(ctx context.Context, u users.User, to []string) error {
	r.mu.Lock()
	r.checks = append(r.checks, u.Name+": "+strings.Join(to, ","))
	r.mu.Unlock()
	if r.check != nil {
		return r.check(to)
	}
	return nil
}

func (r *recordingTexter) Send(ctx context.Context, u users.User, to []string, text string) error {
	r.sent <- u.Name + ": " + strings.Join(to, ",") + ": " + text
	return r.fail
}

func (r *recordingTexter) checked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.checks)
}

// await is the next send (at most a minute: a bound on a failure).
func (r *recordingTexter) await(t *testing.T) string {
	t.Helper()
	select {
	case s := <-r.sent:
		return s
	case <-time.After(time.Minute):
		t.Fatal("no SMS within a minute of the job's end")
		return ""
	}
}

// TestSMSToRefused: an smsTo the job could not text is refused when the
// request comes, on calq's jobs API and on Gotenberg's routes, and
// nothing is queued.
func TestSMSToRefused(t *testing.T) {
	reset := time.Now().Add(90 * time.Second)
	tests := []struct {
		name   string
		texter bool // the server sends SMS
		check  error
		status int
		want   string
		retry  bool // Retry-After
	}{
		{"no SMS", false, nil, http.StatusBadRequest, "form field 'smsTo' cannot be used: this calq serve sends no SMS", false},
		{"no right", true, smsapi.ErrNotAllowed, http.StatusForbidden, "Forbidden: form field 'smsTo': user may not send SMS", false},
		{"a bad number", true, &smsapi.InputError{Field: "to", Value: "12ab", Err: errors.New("not a phone number")},
			http.StatusBadRequest, `form field 'smsTo' is invalid: to "12ab": not a phone number`, false},
		{"over the quota", true, &smsapi.QuotaError{Which: "daily quota", Limit: 5, Reset: reset},
			http.StatusTooManyRequests, "SMS daily quota of 5 reached", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx := newTexter()
			tx.check = func([]string) error { return tt.check }
			ts := newTestServer(t, func(o *Options) {
				if tt.texter {
					o.Texter = tx
				}
			})
			key := addUser(t, ts, "ann", false)
			for _, path := range []string{"/jobs", "/forms/libreoffice/convert"} {
				resp := post(t, ts.URL+path, []upload{{"files", "a.txt", []byte("a\n")}}, map[string]string{"smsTo": "12ab"}, bearer(key))
				b := string(body(t, resp))
				if resp.StatusCode != tt.status || !strings.Contains(b, tt.want) {
					t.Errorf("%s: got %d %q, want %d saying %q", path, resp.StatusCode, b, tt.status, tt.want)
				}
				if got := resp.Header.Get("Retry-After") != ""; got != tt.retry {
					t.Errorf("%s: Retry-After %q, want one: %v", path, resp.Header.Get("Retry-After"), tt.retry)
				}
			}
			page, err := ts.Jobs.Query(context.Background(), jobs.Query{Owner: "*"})
			if err != nil || page.Total != 0 {
				t.Errorf("jobs after refusals: %d %v, want none", page.Total, err)
			}
		})
	}
}

// TestSMSToSent: the recipients of smsTo are checked as the request's
// user when it comes, and the job's end is texted to them as that user:
// a result, and a failure, on calq's jobs API and Gotenberg's routes. A
// job without smsTo texts no one.
func TestSMSToSent(t *testing.T) {
	tx := newTexter()
	ts := newTestServer(t, func(o *Options) { o.Texter = tx })
	key := addUser(t, ts, "ann", false)
	pages, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{"smsTo": " boss , +49 151 1234567,"}
	tests := []struct {
		name, path string
		file       upload
		status     int
		want       string // the text, the job's id as 8 x
	}{
		{"a job done", "/jobs", upload{"files", "a.txt", []byte("a\n")}, http.StatusAccepted,
			"calq: job xxxxxxxx done: 1 file converted, 0 failed"},
		{"Gotenberg's route", "/forms/libreoffice/convert", upload{"files", "b.txt", []byte("b\n")}, http.StatusOK,
			"calq: job xxxxxxxx done: 1 file converted, 0 failed"},
		{"a job failed", "/forms/pdfengines/rotate", upload{"files", "broken.pdf", []byte("%PDF-1.7 not a PDF")}, http.StatusInternalServerError,
			"calq: job xxxxxxxx failed: 0 files converted, 1 failed"},
		{"pages rotated", "/forms/pdfengines/rotate", upload{"files", "p.pdf", pages}, http.StatusOK,
			"calq: job xxxxxxxx done: 1 file converted, 0 failed"},
	}
	id := regexp.MustCompile(`job [0-9a-f]{8} `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fields
			if strings.Contains(tt.path, "rotate") {
				f = map[string]string{"smsTo": fields["smsTo"], "rotateAngle": "90"}
			}
			resp := post(t, ts.URL+tt.path, []upload{tt.file}, f, bearer(key))
			if b := body(t, resp); resp.StatusCode != tt.status {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, b, tt.status)
			}
			got := id.ReplaceAllString(tx.await(t), "job xxxxxxxx ")
			if want := "ann: boss,+49 151 1234567: " + tt.want; got != want {
				t.Errorf("sent %q, want %q", got, want)
			}
		})
	}
	for _, c := range tx.checked() {
		if c != "ann: boss,+49 151 1234567" {
			t.Errorf("checked %q, want ann's two recipients", c)
		}
	}
	resp := post(t, ts.URL+"/jobs", []upload{{"files", "c.txt", []byte("c\n")}}, nil, bearer(key))
	var v jobView
	if err := json.Unmarshal(body(t, resp), &v); err != nil {
		t.Fatal(err)
	}
	if j := waitFinal(t, ts.Server, v.ID); slices.Contains(j.Pending, deliverSMS) {
		t.Errorf("a job without smsTo owes an SMS: %v", j.Pending)
	}
	select {
	case s := <-tx.sent:
		t.Errorf("a job without smsTo sent %q", s)
	default:
	}
}

// jobStore opens the jobs of a journal in dir, closed when t ends.
func jobStore(t *testing.T, dir string) *jobs.Store {
	t.Helper()
	j, err := journal.Open(context.Background(), filepath.Join(dir, "calq.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	js, err := jobs.Open(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestSMSToOwed: a job's SMS that could not be handed over is owed in
// the journal, and a server started again on it sends it; then nothing
// is owed.
func TestSMSToOwed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	js := jobStore(t, dir)
	down := newTexter()
	down.fail = errors.New("the outbox is not there")
	o := Options{Data: filepath.Join(dir, "data"), Jobs: js, Texter: down}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	b, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	resp := post(t, hs.URL+"/jobs?route=pdfengines/rotate", []upload{{"files", "p.pdf", b}}, map[string]string{"rotateAngle": "90", "smsTo": "+4915112345678"}, nil)
	var v jobView
	if err := json.Unmarshal(body(t, resp), &v); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /jobs: %d %v", resp.StatusCode, err)
	}
	waitFinal(t, s, v.ID)
	down.await(t)
	s.delivered(ctx, v.ID)
	s.Stop(0)
	if got, _ := js.Get(ctx, "*", v.ID); !slices.Contains(got.Pending, deliverSMS) || !strings.Contains(got.DeliveryError, "the outbox is not there") {
		t.Fatalf("after a failed hand-over: pending %v, error %q; want the SMS owed, and why", got.Pending, got.DeliveryError)
	}

	up := newTexter()
	o.Texter = up
	s, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Stop(0)
	if got, want := up.await(t), ": +4915112345678: calq: job "+v.ID[:8]+" done: 1 file converted, 0 failed"; got != want {
		t.Errorf("sent after the restart %q, want %q", got, want)
	}
	s.delivered(ctx, v.ID)
	if got, _ := js.Get(ctx, "*", v.ID); len(got.Pending) != 0 {
		t.Errorf("after the restart's send: pending %v, want nothing", got.Pending)
	}
}

// TestEndText: the SMS of a job's end says its short id, its state and
// its files converted and failed, in words a phone shows in one part.
func TestEndText(t *testing.T) {
	files := func(states ...string) []jobs.FileState {
		var fs []jobs.FileState
		for _, s := range states {
			fs = append(fs, jobs.FileState{State: s})
		}
		return fs
	}
	id := "3f2a9c1e0b7d4a5f8e6c2b1a0d9f8e7c"
	tests := []struct {
		name string
		job  jobs.Job
		want string
	}{
		{"done", jobs.Job{ID: id, State: jobs.Done, Files: files(jobs.FileDone, jobs.FileDone)},
			"calq: job 3f2a9c1e done: 2 files converted, 0 failed"},
		{"a page's job with a failed file", jobs.Job{ID: id, State: jobs.Done, Files: files(jobs.FileDone, jobs.FileFailed)},
			"calq: job 3f2a9c1e done: 1 file converted, 1 failed"},
		{"failed", jobs.Job{ID: id, State: jobs.Failed, Files: files(jobs.FileFailed, jobs.FileFailed, jobs.FileFailed)},
			"calq: job 3f2a9c1e failed: 0 files converted, 3 failed"},
		{"a web page's job", jobs.Job{ID: id, State: jobs.Done}, "calq: job 3f2a9c1e done"},
	}
	for _, tt := range tests {
		if got := endText(&tt.job); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
