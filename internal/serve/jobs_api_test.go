package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"calq/convert/pdf"
	"calq/internal/serve/jobs"
	"calq/internal/serve/users"
)

func addUser(t *testing.T, ts *testServer, name string, admin bool) string {
	t.Helper()
	ctx := context.Background()
	if _, err := ts.Users.Add(ctx, users.User{Name: name, Admin: admin}); err != nil {
		t.Fatal(err)
	}
	key, err := ts.Users.NewKey(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func get(t *testing.T, url, key string) *http.Response {
	t.Helper()
	return do(t, http.MethodGet, url, key)
}

func do(t *testing.T, method, url, key string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func bearer(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} }

// TestJobsAPI: POST /jobs, its state, its result, one user's jobs unseen
// by another (404, as a job that does not exist), cancel and delete.
func TestJobsAPI(t *testing.T) {
	ts := newTestServer(t, nil)
	ann, bob := addUser(t, ts, "ann", false), addUser(t, ts, "bob", false)
	admin := addUser(t, ts, "root", true)
	doc := upload{"files", "note.txt", []byte("a note\n")}

	resp := post(t, ts.URL+"/jobs", []upload{doc}, nil, bearer(ann))
	b := body(t, resp)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /jobs: %d %s", resp.StatusCode, b)
	}
	var v jobView
	if err := json.Unmarshal(b, &v); err != nil || len(v.ID) != 32 || resp.Header.Get("Location") != "/jobs/"+v.ID {
		t.Fatalf("POST /jobs reply %s (%v), Location %q", b, err, resp.Header.Get("Location"))
	}

	resp = get(t, ts.URL+"/jobs/"+v.ID+"?wait=30s", ann)
	b = body(t, resp)
	var done jobView
	json.Unmarshal(b, &done)
	if resp.StatusCode != 200 || done.State != jobs.Done || done.FilesDone != 1 || done.Result != "/jobs/"+v.ID+"/result" ||
		len(done.Files) != 1 || done.Files[0].Name != "note.txt" {
		t.Fatalf("GET /jobs/ID?wait: %d %s", resp.StatusCode, b)
	}
	resp = get(t, ts.URL+"/jobs/"+v.ID+"/result", ann)
	if b := body(t, resp); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pdf" {
		t.Errorf("result: %d %s", resp.StatusCode, b)
	} else {
		pdfFile(t, b)
	}

	// Bob cannot tell Ann's job from one that does not exist.
	for _, path := range []string{"/jobs/" + v.ID, "/jobs/" + v.ID + "/result"} {
		resp = get(t, ts.URL+path, bob)
		other := string(body(t, resp))
		resp = get(t, ts.URL+strings.Replace(path, v.ID, strings.Repeat("0", 32), 1), bob)
		none := string(body(t, resp))
		if resp.StatusCode != 404 || strings.Replace(other, v.ID, "", 1) != strings.Replace(none, strings.Repeat("0", 32), "", 1) {
			t.Errorf("GET %s as bob: %q; a missing job: %q; want the same 404", path, other, none)
		}
	}
	if resp := do(t, http.MethodDelete, ts.URL+"/jobs/"+v.ID, bob); resp.StatusCode != 404 {
		t.Errorf("DELETE of ann's job as bob: %d, want 404", resp.StatusCode)
	}
	// An administrator sees every job.
	if resp := get(t, ts.URL+"/jobs/"+v.ID, admin); resp.StatusCode != 200 {
		t.Errorf("GET as admin: %d", resp.StatusCode)
	}
	var list []jobView
	resp = get(t, ts.URL+"/jobs", bob)
	json.Unmarshal(body(t, resp), &list)
	if len(list) != 0 {
		t.Errorf("GET /jobs as bob lists %d jobs, want none", len(list))
	}

	// Deleting a final job removes it and its files.
	if resp := do(t, http.MethodDelete, ts.URL+"/jobs/"+v.ID, ann); resp.StatusCode != 204 {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	if resp := get(t, ts.URL+"/jobs/"+v.ID, ann); resp.StatusCode != 404 {
		t.Errorf("GET after DELETE: %d, want 404", resp.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(ts.Data, "jobs", v.ID)); !os.IsNotExist(err) {
		t.Errorf("the job's directory after DELETE: %v", err)
	}
}

// TestAuth: once a user exists, every route but /health wants a key, in
// any of the three places clients put one.
func TestAuth(t *testing.T) {
	ts := newTestServer(t, nil)
	doc := upload{"files", "a.txt", []byte("a\n")}
	url := ts.URL + "/forms/libreoffice/convert"
	// No user yet: open, as on loopback without authentication.
	if resp := post(t, url, []upload{doc}, nil, nil); resp.StatusCode != 200 {
		t.Fatalf("no users: %d %s", resp.StatusCode, body(t, resp))
	}
	key := addUser(t, ts, "ann", false)
	for _, c := range []struct {
		name   string
		header http.Header
		status int
	}{
		{"none", nil, 401},
		{"wrong bearer", bearer("calq_" + strings.Repeat("A", 43)), 401},
		{"bearer", bearer(key), 200},
		{"X-Api-Key", http.Header{"X-Api-Key": {key}}, 200},
		{"Basic password", http.Header{"Authorization": {basic("anyone", key)}}, 200},
		{"Basic wrong", http.Header{"Authorization": {basic("ann", "nope")}}, 401},
	} {
		resp := post(t, url, []upload{doc}, nil, c.header)
		b := body(t, resp)
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, resp.StatusCode, b, c.status)
		}
		if c.status == 401 && resp.Header.Get("Www-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", c.name)
		}
	}
	if resp := get(t, ts.URL+"/health", ""); resp.StatusCode != 200 {
		t.Errorf("/health without a key: %d, want 200", resp.StatusCode)
	}
	for _, path := range []string{"/version", "/prometheus/metrics", "/jobs"} {
		if resp := get(t, ts.URL+path, ""); resp.StatusCode != 401 {
			t.Errorf("%s without a key: %d, want 401", path, resp.StatusCode)
		}
		if resp := get(t, ts.URL+path, key); resp.StatusCode != 200 {
			t.Errorf("%s with a key: %d, want 200", path, resp.StatusCode)
		}
	}
}

func basic(user, pw string) string {
	req, _ := http.NewRequest(http.MethodGet, "http://x", nil)
	req.SetBasicAuth(user, pw)
	return req.Header.Get("Authorization")
}

// TestHealthAndMetrics: Gotenberg's health shape with calq's instances,
// and the metrics the issue names.
func TestHealthAndMetrics(t *testing.T) {
	ts := newTestServer(t, nil)
	resp := post(t, ts.URL+"/forms/libreoffice/convert", []upload{{"files", "a.txt", []byte("a\n")}}, nil, nil)
	body(t, resp)
	resp = get(t, ts.URL+"/health", "")
	var h healthView
	if err := json.Unmarshal(body(t, resp), &h); err != nil || h.Status != "up" ||
		h.Details["libreoffice"].Status != "up" || len(h.Details["libreoffice"].Instances) != 2 {
		t.Errorf("health = %+v, %v", h, err)
	}
	resp = get(t, ts.URL+"/prometheus/metrics", "")
	m := string(body(t, resp))
	for _, want := range []string{`calq_serve_jobs_queued{class="P2"}`, "calq_serve_instances_busy", `calq_serve_conversions_total{outcome="ok"} `,
		"calq_serve_conversion_seconds_bucket", "calq_serve_queue_wait_seconds_bucket"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	resp = get(t, ts.URL+"/version", "")
	if b := string(body(t, resp)); b != "(devel)" {
		t.Errorf("got version %q, want (devel): the version alone, as Gotenberg's, without a newline", b)
	}
}

// TestFairness: a second user's single file is converted while the first
// user's 100 files are still queued.
func TestFairness(t *testing.T) {
	ts := newTestServer(t, nil)
	ann, bob := addUser(t, ts, "ann", false), addUser(t, ts, "bob", false)
	var many []upload
	for i := range 100 {
		many = append(many, upload{"files", "doc" + strings.Repeat("0", 3-len(itoa(i))) + itoa(i) + ".txt", []byte("page " + itoa(i) + "\n")})
	}
	resp := post(t, ts.URL+"/jobs", many, nil, bearer(ann))
	var v jobView
	json.Unmarshal(body(t, resp), &v)
	if resp.StatusCode != 202 {
		t.Fatalf("ann's job: %d", resp.StatusCode)
	}
	// Wait until ann's files hold the instances.
	for {
		resp = get(t, ts.URL+"/jobs/"+v.ID, ann)
		var s jobView
		json.Unmarshal(body(t, resp), &s)
		if s.FilesDone > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp = post(t, ts.URL+"/forms/libreoffice/convert", []upload{{"files", "bob.txt", []byte("bob\n")}}, nil, bearer(bob))
	if b := body(t, resp); resp.StatusCode != 200 {
		t.Fatalf("bob's file: %d %s", resp.StatusCode, b)
	}
	resp = get(t, ts.URL+"/jobs/"+v.ID, ann)
	var s jobView
	json.Unmarshal(body(t, resp), &s)
	if s.State == jobs.Done || s.FilesDone >= 90 {
		t.Errorf("bob's single file finished after %d of ann's 100 (ann's job %s); want it served among the first", s.FilesDone, s.State)
	}
	t.Logf("bob's file finished when ann's job had %d of 100 files done", s.FilesDone)
	resp = get(t, ts.URL+"/jobs/"+v.ID+"?wait=60s", ann)
	json.Unmarshal(body(t, resp), &s)
	if s.State != jobs.Done {
		t.Errorf("ann's job: %s %s", s.State, s.Error)
	}
	resp = get(t, ts.URL+"/jobs/"+v.ID+"/result", ann)
	names, _ := zipEntries(t, body(t, resp))
	if len(names) != 100 || names[0] != "doc000.txt.pdf" || names[99] != "doc099.txt.pdf" {
		t.Errorf("ann's zip: %d entries, first %v", len(names), names[:min(3, len(names))])
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestProfile: a user's profile gives the defaults of their requests,
// and the form's fields override them.
func TestProfile(t *testing.T) {
	ts := newTestServer(t, func(o *Options) {
		o.Profile = func(name string) (Task, error) {
			if name != "legal" {
				return Task{}, fmt.Errorf("unknown profile %q", name)
			}
			return Task{Post: pdf.Post{Metadata: &pdf.Metadata{Author: "Legal Dept", Title: "From the profile"}}}, nil
		}
	})
	ctx := context.Background()
	ts.Users.Add(ctx, users.User{Name: "ann", Profile: "legal"})
	key, _ := ts.Users.NewKey(ctx, "ann")
	ts.Users.Add(ctx, users.User{Name: "bob", Profile: "gone"})
	bobKey, _ := ts.Users.NewKey(ctx, "bob")
	doc := upload{"files", "a.txt", []byte("a\n")}
	url := ts.URL + "/forms/libreoffice/convert"

	read := func(b []byte) map[string]string {
		t.Helper()
		m, err := pdf.ReadMetadata(ctx, pdfFile(t, b))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	resp := post(t, url, []upload{doc}, nil, bearer(key))
	if m := read(body(t, resp)); m["Author"] != "Legal Dept" || m["Title"] != "From the profile" {
		t.Errorf("with the profile: %v", m)
	}
	resp = post(t, url, []upload{doc}, map[string]string{"metadata": `{"Author":"Ann"}`}, bearer(key))
	if m := read(body(t, resp)); m["Author"] != "Ann" {
		t.Errorf("the form's metadata over the profile's: %v", m)
	}
	resp = post(t, url, []upload{doc}, nil, bearer(bobKey))
	if b := string(body(t, resp)); resp.StatusCode != 500 || !strings.Contains(b, `"gone"`) {
		t.Errorf("a user whose profile is gone: %d %q, want 500 naming it", resp.StatusCode, b)
	}
}
