package serve

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestRootPathPages: under a root path the pages name their links,
// forms, scripts and redirects under it, and the jobs API its Location
// and result; nothing names a path outside it.
func TestRootPathPages(t *testing.T) {
	ts := pageServer(t, func(o *Options) { o.Routes.RootPath = "/pdf/" })
	base := ts.URL + "/pdf"
	c := browserClient(t)
	unrooted := regexp.MustCompile(`\b(?:href|src|action|data-src)="/(?:[^p/]|p[^d]|pd[^f]|pdf[^/])`)
	for _, step := range []struct {
		name, path string
		status     int
		location   string // "" not checked
		page       string // a part of the page
	}{
		{"root to the pages", "/", http.StatusSeeOther, "/pdf/login?next=%2F", ""},
		{"sign-in page", "/login", http.StatusOK, "", `action="/pdf/login"`},
		{"its style", "/login", http.StatusOK, "", `href="/pdf/static/calq.css"`},
	} {
		status, page := pageGet(t, c, base+step.path, nil)
		if status != step.status || !strings.Contains(page, step.page) {
			t.Errorf("%s: got %d %.300q, want %d holding %q", step.name, status, page, step.status, step.page)
		}
		if m := unrooted.FindString(page); m != "" {
			t.Errorf("%s: got %q in the page, want every path under /pdf/", step.name, m)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
	if resp, err := c.Do(req); err != nil || resp.Header.Get("Location") != "/pdf/login?next=%2F" {
		t.Errorf("GET /pdf/: got Location %q, %v, want /pdf/login?next=%%2F", resp.Header.Get("Location"), err)
	}
	resp := signIn(t, c, base, "alice", "alice-secret-pw")
	if got := resp.Header.Get("Location"); got != "/pdf/history" {
		t.Errorf("sign-in: got Location %q, want /pdf/history", got)
	}
	status, page := pageGet(t, c, base+"/convert", nil)
	if status != http.StatusOK || !strings.Contains(page, `action="/pdf/convert"`) || unrooted.MatchString(page) {
		t.Errorf("convert page: got %d, want its form and links under /pdf/:\n%.2000s", status, page)
	}
	if status, _ := pageGet(t, c, base+"/static/calq.js", nil); status != http.StatusOK {
		t.Errorf("GET /pdf/static/calq.js: got %d, want 200", status)
	}
	key, err := ts.Users.NewKey(t.Context(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	auth := http.Header{"Authorization": {"Bearer " + key}}
	resp = post(t, base+"/jobs", []upload{{"files", "a.txt", []byte("a\n")}}, nil, auth)
	var v jobView
	if err := json.Unmarshal(body(t, resp), &v); err != nil || resp.Header.Get("Location") != "/pdf/jobs/"+v.ID {
		t.Fatalf("POST /pdf/jobs: got Location %q, %v, want /pdf/jobs/%s", resp.Header.Get("Location"), err, v.ID)
	}
	req, _ = http.NewRequest(http.MethodGet, base+"/jobs/"+v.ID+"?wait=1m", nil)
	req.Header = auth
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(body(t, r2), &v)
	if v.Result != "/pdf/jobs/"+v.ID+"/result" {
		t.Errorf("GET /pdf/jobs/ID: got result %q (state %s), want /pdf/jobs/%s/result", v.Result, v.State, v.ID)
	}
}
