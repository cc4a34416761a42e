package serve

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"calq/internal/serve/jobs"
)

// pageSize is how many jobs a history or log page lists.
const pageSize = 25

// jobFilter is the filter form of the history and the log.
type jobFilter struct {
	User, State, Since, Until, Q string
	Page                         int
}

// readFilter reads a job filter from the query; its error names the
// field that is wrong.
func readFilter(q url.Values, owner string) (jobFilter, jobs.Query, error) {
	f := jobFilter{User: q.Get("user"), State: q.Get("state"), Since: q.Get("since"), Until: q.Get("until"), Q: q.Get("q")}
	jq := jobs.Query{Owner: owner, Text: f.Q, Limit: pageSize}
	if f.State != "" {
		st := jobs.State(f.State)
		if !slices.ContainsFunc(stateChoices, func(c stateChoice) bool { return c.State == st }) {
			return f, jq, fmt.Errorf("state %q is not one of queued, running, done, partial, failed, cancelled", f.State)
		}
		jq.State = st
	}
	day := func(name, v string, next bool) (time.Time, error) {
		if v == "" {
			return time.Time{}, nil
		}
		t, err := time.ParseInLocation("2006-01-02", v, time.Local)
		if err != nil {
			return t, fmt.Errorf("%s %q is not a date such as 2026-11-28", name, v)
		}
		if next {
			t = t.AddDate(0, 0, 1) // the whole day
		}
		return t, nil
	}
	var err error
	if jq.Since, err = day("from", f.Since, false); err != nil {
		return f, jq, err
	}
	if jq.Until, err = day("to", f.Until, true); err != nil {
		return f, jq, err
	}
	if !jq.Since.IsZero() && !jq.Until.IsZero() && !jq.Since.Before(jq.Until) {
		return f, jq, fmt.Errorf("the dates are the wrong way round: from %s to %s", f.Since, f.Until)
	}
	f.Page = 1
	if v := q.Get("page"); v != "" {
		if f.Page, err = strconv.Atoi(v); err != nil || f.Page < 1 || f.Page > 1e6 {
			return f, jq, fmt.Errorf("page %q is not a page number", v)
		}
	}
	jq.Offset = (f.Page - 1) * pageSize
	return f, jq, nil
}

// stateChoice is a choice of the state filter: what jobs.Query.State
// keeps, in words.
type stateChoice struct {
	State jobs.State
	Label string
}

// stateChoices are the state filter's choices, in the order a job goes.
var stateChoices = []stateChoice{
	{jobs.Queued, "queued"},
	{jobs.Running, "converting"},
	{jobs.Done, "done, every file"},
	{jobs.Partial, "done, some files failed"},
	{jobs.Failed, "failed, whole or some files"},
	{jobs.Cancelled, "cancelled"},
}

// jobRow is a job in the history or the log.
type jobRow struct {
	Job       jobs.Job
	Progress  progressView
	Outputs   []output
	ShowError bool // the job's error says what its files do not
}

type historyView struct {
	Filter     jobFilter
	Rows       []jobRow
	Total      int
	Pages      int
	Keep       time.Duration
	States     []stateChoice
	Admin      bool // the log: every user's jobs
	PrevQuery  string
	NextQuery  string
	CSVQuery   string
	JSONLQuery string
}

// jobList runs the filter of the request's query for owner and fills a
// history view; its error is the filter's.
func (s *Server) jobList(r *http.Request, owner string) (historyView, error) {
	v := historyView{Keep: s.opts.Keep, States: stateChoices}
	f, jq, err := readFilter(r.URL.Query(), owner)
	v.Filter = f
	if err != nil {
		return v, err
	}
	pg, err := s.opts.Jobs.Query(r.Context(), jq)
	if err != nil {
		return v, err
	}
	v.Total = pg.Total
	v.Pages = max(1, (pg.Total+pageSize-1)/pageSize)
	for i := range pg.Jobs {
		j := &pg.Jobs[i]
		row := jobRow{Job: *j, Progress: s.jobProgress(j), Outputs: outputs(j)}
		row.ShowError = jobErrorShown(j, row.Progress)
		v.Rows = append(v.Rows, row)
	}
	link := func(page int, format string) string {
		q := url.Values{}
		for k, val := range map[string]string{"user": f.User, "state": f.State, "since": f.Since, "until": f.Until, "q": f.Q, "format": format} {
			if val != "" {
				q.Set(k, val)
			}
		}
		if page > 1 {
			q.Set("page", strconv.Itoa(page))
		}
		return q.Encode()
	}
	if f.Page > 1 {
		v.PrevQuery = "?" + link(f.Page-1, "")
	}
	if f.Page < v.Pages {
		v.NextQuery = "?" + link(f.Page+1, "")
	}
	v.CSVQuery, v.JSONLQuery = "?"+link(0, "csv"), "?"+link(0, "jsonl")
	return v, nil
}

// historyPage is the user's own jobs, newest first, filtered and paged.
func (s *Server) historyPage(w http.ResponseWriter, r *http.Request) {
	v, err := s.jobList(r, user(r).Name)
	p := page{Title: "History", Nav: "history", Data: v}
	status := http.StatusOK
	if err != nil {
		status, p.Error = s.refusedChange("read the history", err)
	}
	s.render(w, r, status, "history", p)
}
