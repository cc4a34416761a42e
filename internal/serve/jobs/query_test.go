package jobs

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// queryFixture records jobs of three owners a day apart, the first on
// day0, and returns day0.
func queryFixture(t *testing.T, s *Store) time.Time {
	t.Helper()
	ctx := context.Background()
	day0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	jobs := []struct {
		id, owner string
		files     []string
		state     State
		err       string
	}{
		{"a1", "ann", []string{"report.docx"}, Done, ""},
		{"a2", "ann", []string{"100%_done.docx", "Budget.XLSX"}, Failed, "LibreOffice: Conversion FAILED"},
		{"a3", "ann", []string{"100x done.docx"}, Queued, ""},
		{"b1", "bob", []string{"report.docx"}, Done, ""},
		{"b2", "bob", []string{"secret_plan.odt"}, Cancelled, "the job was cancelled"},
		{"n1", "", []string{"secret-plan.pdf"}, Done, ""}, // what an unescaped "t_p" would find
	}
	for i, j := range jobs {
		var req Request
		for _, f := range j.files {
			req.Files = append(req.Files, File{Name: f, Stored: "x"})
		}
		if err := s.Add(ctx, &Job{ID: j.id, Owner: j.owner, Route: "libreoffice/convert", Request: req,
			Created: day0.Add(time.Duration(i) * 24 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if j.state != Queued {
			if ok, err := s.Finish(ctx, j.id, j.state, nil, j.err, 0); !ok || err != nil {
				t.Fatalf("Finish(%s) = %v, %v", j.id, ok, err)
			}
		}
	}
	return day0
}

func TestQuery(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	day0 := queryFixture(t, s)
	day := func(n int) time.Time { return day0.Add(time.Duration(n) * 24 * time.Hour) }
	tests := []struct {
		name  string
		q     Query
		ids   []string
		total int
	}{
		{"everyone, newest first", Query{Owner: "*"}, []string{"n1", "b2", "b1", "a3", "a2", "a1"}, 6},
		{"one owner", Query{Owner: "ann"}, []string{"a3", "a2", "a1"}, 3},
		{"another owner", Query{Owner: "bob"}, []string{"b2", "b1"}, 2},
		{"the anonymous owner is not a wildcard", Query{Owner: ""}, []string{"n1"}, 1},
		{"an unknown owner", Query{Owner: "eve"}, nil, 0},
		{"state", Query{Owner: "*", State: Done}, []string{"n1", "b1", "a1"}, 3},
		{"since", Query{Owner: "*", Since: day(4)}, []string{"n1", "b2"}, 2},
		{"until excludes its instant", Query{Owner: "*", Until: day(1)}, []string{"a1"}, 1},
		{"since and until", Query{Owner: "*", Since: day(1), Until: day(3)}, []string{"a3", "a2"}, 2},
		{"text in a file name, any case", Query{Owner: "*", Text: "budget.xlsx"}, []string{"a2"}, 1},
		{"text in the error", Query{Owner: "*", Text: "conversion failed"}, []string{"a2"}, 1},
		{"% is literal", Query{Owner: "*", Text: "100%"}, []string{"a2"}, 1},
		{"_ is literal", Query{Owner: "*", Text: "t_p"}, []string{"b2"}, 1},
		{"a lone % finds only a %", Query{Owner: "*", Text: "%"}, []string{"a2"}, 1},
		{"backslash is literal", Query{Owner: "*", Text: `\`}, nil, 0},
		{"text shared by owners", Query{Owner: "*", Text: "REPORT"}, []string{"b1", "a1"}, 2},
		{"text within one owner", Query{Owner: "bob", Text: "report"}, []string{"b1"}, 1},
		{"another owner's text is not found", Query{Owner: "ann", Text: "secret"}, nil, 0},
		{"combined", Query{Owner: "ann", State: Failed, Since: day(1), Until: day(2), Text: "budget"}, []string{"a2"}, 1},
		{"combined, state excludes", Query{Owner: "ann", State: Done, Since: day(1), Text: "budget"}, nil, 0},
		{"limit", Query{Owner: "*", Limit: 2}, []string{"n1", "b2"}, 6},
		{"offset and limit", Query{Owner: "*", Offset: 2, Limit: 3}, []string{"b1", "a3", "a2"}, 6},
		{"offset past the end", Query{Owner: "*", Offset: 10}, nil, 6},
		{"negative offset", Query{Owner: "ann", Offset: -5, Limit: 1}, []string{"a3"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.Query(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, j := range p.Jobs {
				ids = append(ids, j.ID)
				if tt.q.Owner != "*" && j.Owner != tt.q.Owner {
					t.Errorf("owner %q's query returned %s of %q", tt.q.Owner, j.ID, j.Owner)
				}
			}
			if !reflect.DeepEqual(ids, tt.ids) || p.Total != tt.total {
				t.Errorf("got %v (total %d), want %v (total %d)", ids, p.Total, tt.ids, tt.total)
			}
		})
	}
}

func TestQueryPage(t *testing.T) {
	tests := []struct {
		limit, offset         int
		wantLimit, wantOffset int
	}{
		{0, 0, DefaultLimit, 0},
		{-1, -1, DefaultLimit, 0},
		{7, 3, 7, 3},
		{MaxLimit, 0, MaxLimit, 0},
		{MaxLimit + 1, 0, MaxLimit, 0},
	}
	for _, tt := range tests {
		l, o := Query{Limit: tt.limit, Offset: tt.offset}.page()
		if l != tt.wantLimit || o != tt.wantOffset {
			t.Errorf("page(Limit %d, Offset %d) = %d, %d; want %d, %d", tt.limit, tt.offset, l, o, tt.wantLimit, tt.wantOffset)
		}
	}
}

func TestSetFiles(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	if err := s.Add(ctx, &Job{ID: "j", Owner: "u", Request: Request{Files: []File{{Name: "a.docx"}, {Name: "b.docx"}}}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files []FileState
	}{
		{"states and reasons", []FileState{{Name: "a.docx", State: FileDone}, {Name: "b.docx", State: FileFailed, Reason: "source file \"b\" is corrupt\nline 2"}}},
		{"converting and skipped", []FileState{{Name: "a.docx", State: FileConverting}, {Name: "b.docx", State: FileSkipped, Reason: "empty"}}},
		{"none", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.SetFiles(ctx, "j", tt.files); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(ctx, "u", "j")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Files, tt.files) {
				t.Errorf("Files = %+v, want %+v", got.Files, tt.files)
			}
		})
	}
	if err := s.SetFiles(ctx, "nope", nil); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("SetFiles of a missing job: %v, want ErrNotFound naming it", err)
	}
}

func TestExpire(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	for _, id := range []string{"old", "kept"} {
		if err := s.Add(ctx, &Job{ID: id, Owner: "u", Request: Request{Files: []File{{Name: id + ".docx"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	res := &Result{Path: "result.pdf", ContentType: "application/pdf", Name: "old.pdf"}
	s.Finish(ctx, "old", Done, res, "", 0)
	if err := s.Expire(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "u", "old")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Expired || !reflect.DeepEqual(got.Result, res) || got.State != Done {
		t.Errorf("expired job = %+v; want Expired, Done, its result kept", got)
	}
	if k, _ := s.Get(ctx, "u", "kept"); k.Expired {
		t.Error("Expire marked another job")
	}
	// Retention does not see an expired job again.
	old, err := s.Before(ctx, now.Add(time.Second))
	if err != nil || len(old) != 1 || old[0].ID != "kept" {
		t.Errorf("Before after Expire = %+v, %v; want kept only", old, err)
	}
	// The history still lists it.
	if p, _ := s.Query(ctx, Query{Owner: "u", Text: "old.docx"}); p.Total != 1 || !p.Jobs[0].Expired {
		t.Errorf("Query of an expired job = %+v", p)
	}
	if err := s.Expire(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Expire of a missing job: %v, want ErrNotFound", err)
	}
}

// TestQueryPartial: a done job some of whose files failed is Partial
// (its record says done: the page's jobs keep the PDFs that converted).
// The failed filter finds it with the jobs that failed whole, the done
// filter only the jobs whose every file converted.
func TestQueryPartial(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	day0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	jobs := []struct {
		id    string
		state State
		files []FileState
	}{
		{"all-done", Done, []FileState{{Name: "a.docx", State: FileDone}, {Name: `"state":"failed".docx`, State: FileDone}}},
		{"some-failed", Done, []FileState{{Name: "a.docx", State: FileDone}, {Name: "b.docx", State: FileFailed, Reason: "damaged"}}},
		{"failed", Failed, []FileState{{Name: "a.docx", State: FileFailed, Reason: "damaged"}}},
		{"old-done", Done, nil}, // recorded before the files' states were kept
	}
	for i, j := range jobs {
		req := Request{Files: []File{{Name: "a.docx", Stored: "x"}}}
		if err := s.Add(ctx, &Job{ID: j.id, Owner: "ann", Request: req, Created: day0.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetFiles(ctx, j.id, j.files); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Finish(ctx, j.id, j.state, nil, "", 0); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		state State
		ids   []string
	}{
		{Done, []string{"old-done", "all-done"}},
		{Partial, []string{"some-failed"}},
		{Failed, []string{"failed", "some-failed"}},
	}
	for _, tt := range tests {
		p, err := s.Query(ctx, Query{Owner: "ann", State: tt.state})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, j := range p.Jobs {
			ids = append(ids, j.ID)
		}
		if !reflect.DeepEqual(ids, tt.ids) || p.Total != len(tt.ids) {
			t.Errorf("state %s: got %v (total %d), want %v", tt.state, ids, p.Total, tt.ids)
		}
	}
	got := map[string]State{}
	all, err := s.Query(ctx, Query{Owner: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range all.Jobs {
		got[j.ID] = j.Outcome()
	}
	want := map[string]State{"all-done": Done, "some-failed": Partial, "failed": Failed, "old-done": Done}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
}
