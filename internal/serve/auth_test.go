package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"calq/internal/serve/jobs"
	"calq/internal/serve/users"
	"calq/sched"
)

// TestAPICrossSite: an API write that a browser sent from another site is
// refused with 403 and a sentence, whatever credentials the browser
// added; a program's (neither header) and a same-origin page's go
// through. Reads are not concerned.
func TestAPICrossSite(t *testing.T) {
	for _, withUsers := range []bool{true, false} {
		ts := newTestServer(t, nil)
		key := ""
		if withUsers {
			key = addUser(t, ts, "ann", false)
		}
		tests := []struct {
			name, method, path string
			header             http.Header
			want               int
		}{
			{"cross-site delete", http.MethodDelete, "/jobs/nothing", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
			{"same-site delete", http.MethodDelete, "/jobs/nothing", http.Header{"Sec-Fetch-Site": {"same-site"}}, 403},
			{"foreign origin", http.MethodPost, "/forms/libreoffice/convert", http.Header{"Origin": {"https://evil.example"}}, 403},
			{"cross-site job", http.MethodPost, "/jobs", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
			{"a program's delete", http.MethodDelete, "/jobs/nothing", nil, 404},
			{"same-origin delete", http.MethodDelete, "/jobs/nothing", http.Header{"Sec-Fetch-Site": {"same-origin"}}, 404},
			{"own origin", http.MethodDelete, "/jobs/nothing", http.Header{"Origin": {ts.URL}}, 404},
			{"cross-site read", http.MethodGet, "/jobs/nothing", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 404},
		}
		for _, tt := range tests {
			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, nil)
			for k, v := range tt.header {
				req.Header[k] = v
			}
			if key != "" {
				req.SetBasicAuth("ann", key) // as a browser caches it
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b := body(t, resp)
			if resp.StatusCode != tt.want || (tt.want == 403 && !strings.Contains(string(b), "from another site")) {
				t.Errorf("users %v, %s: %d %s, want %d", withUsers, tt.name, resp.StatusCode, b, tt.want)
			}
		}
	}
}

// TestAPISession: a browser signed in to the pages reads the API with
// its session, its own jobs only, without a Basic prompt; a write with a
// session alone still needs to come from the same site.
func TestAPISession(t *testing.T) {
	ts := pageServer(t, nil)
	ctx := context.Background()
	for _, j := range []*jobs.Job{{ID: strings.Repeat("a", 32), Owner: "alice"}, {ID: strings.Repeat("b", 32), Owner: "bob"}} {
		j.Route, j.Class = routeConvert, sched.P2
		j.Request.Files = []jobs.File{{Name: "x.txt", Stored: "0", Size: 1}}
		if err := ts.Jobs.Add(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	c := browserClient(t)
	if status, _ := pageGet(t, c, ts.URL+"/jobs", nil); status != http.StatusUnauthorized {
		t.Fatalf("GET /jobs before signing in: %d, want 401", status)
	}
	signIn(t, c, ts.URL, "alice", "alice-secret-pw")
	tests := []struct {
		name, method, path string
		header             http.Header
		want               int
	}{
		{"her jobs", http.MethodGet, "/jobs", nil, 200},
		{"her job", http.MethodGet, "/jobs/" + strings.Repeat("a", 32), nil, 200},
		{"bob's job", http.MethodGet, "/jobs/" + strings.Repeat("b", 32), nil, 404},
		{"bob's result", http.MethodGet, "/jobs/" + strings.Repeat("b", 32) + "/result", nil, 404},
		{"metrics", http.MethodGet, "/prometheus/metrics", nil, 200},
		{"cross-site delete", http.MethodDelete, "/jobs/" + strings.Repeat("a", 32), http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
		{"delete bob's", http.MethodDelete, "/jobs/" + strings.Repeat("b", 32), http.Header{"Sec-Fetch-Site": {"same-origin"}}, 404},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, ts.URL+tt.path, nil)
		for k, v := range tt.header {
			req.Header[k] = v
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b := body(t, resp)
		if resp.StatusCode != tt.want || resp.Header.Get("WWW-Authenticate") != "" {
			t.Errorf("%s: %d (WWW-Authenticate %q) %s, want %d", tt.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b, tt.want)
		}
		if tt.name == "her jobs" {
			var vs []jobView
			if err := json.Unmarshal(b, &vs); err != nil || len(vs) != 1 || vs[0].Owner != "alice" {
				t.Errorf("GET /jobs with alice's session: %s, want her job alone", b)
			}
		}
	}
	ts.Users.SetDisabled(ctx, "alice", true)
	if status, _ := pageGet(t, c, ts.URL+"/jobs", nil); status != http.StatusUnauthorized {
		t.Errorf("GET /jobs once alice is disabled: %d, want 401", status)
	}
}

// countingUsers counts the reads of the real users store.
type countingUsers struct {
	*users.Store
	counts atomic.Int32
}

func (c *countingUsers) Count(ctx context.Context) (int, error) {
	c.counts.Add(1)
	return c.Store.Count(ctx)
}

// TestAuthReads: requests without credentials, to the API and to the
// pages, do not each read the count of users.
func TestAuthReads(t *testing.T) {
	var cu *countingUsers
	ts := pageServer(t, func(o *Options) {
		cu = &countingUsers{Store: o.Users.(*users.Store)}
		o.Users, o.Accounts = cu, cu
	})
	before := cu.counts.Load()
	for range 20 {
		for _, path := range []string{"/jobs", "/version", "/history", "/login"} {
			resp := get(t, ts.URL+path, "")
			body(t, resp)
			if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s without credentials: %d", path, resp.StatusCode)
			}
		}
	}
	if got := cu.counts.Load() - before; got > 1 {
		t.Errorf("80 requests without credentials read the count of users %d times, want at most once", got)
	}
}

// TestEventStreamsPerUser: a user holds at most maxStreamsPerUser event
// streams open; beyond, 429 with Retry-After. Another user is not
// concerned, and a stream closed makes room.
func TestEventStreamsPerUser(t *testing.T) {
	ts := pageServer(t, nil)
	ctx := context.Background()
	// Queued, but not run by this server: its stream stays open.
	id := strings.Repeat("c", 32)
	j := &jobs.Job{ID: id, Owner: "alice", Route: routeConvert, Class: sched.P2,
		Request: jobs.Request{Files: []jobs.File{{Name: "x.txt", Stored: "0", Size: 1}}}}
	if err := ts.Jobs.Add(ctx, j); err != nil {
		t.Fatal(err)
	}
	alice, root := browserClient(t), browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	signIn(t, root, ts.URL, "root", "root-secret-pw")
	open := func(c *http.Client) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/job/"+id+"/events", nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			// The first event: the stream is open and counted.
			if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		return resp
	}
	var streams []*http.Response
	for i := range maxStreamsPerUser {
		resp := open(alice)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d, want 200", i, resp.StatusCode)
		}
		streams = append(streams, resp)
	}
	resp := open(alice)
	b := body(t, resp)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("stream %d: %d (Retry-After %q) %s, want 429 with Retry-After", maxStreamsPerUser+1, resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	if resp := open(root); resp.StatusCode != http.StatusOK {
		t.Errorf("another user's stream: %d, want 200", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
	streams[0].Body.Close()
	// The server sees the close when it next writes; until then, retry.
	for {
		resp := open(alice)
		if resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			break
		}
		body(t, resp)
	}
	for _, s := range streams[1:] {
		s.Body.Close()
	}
}

// TestRequireUsers: a server on an address other than loopback refuses
// every request but /health once its last user is removed, instead of
// serving anyone.
func TestRequireUsers(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.RequireUsers = true })
	for _, path := range []string{"/jobs", "/version", "/health"} {
		resp := get(t, ts.URL+path, "")
		b := body(t, resp)
		want := http.StatusServiceUnavailable
		if path == "/health" {
			want = http.StatusOK
		}
		if resp.StatusCode != want {
			t.Errorf("GET %s without users: %d %s, want %d", path, resp.StatusCode, b, want)
		}
	}
	key := addUser(t, ts, "ann", false)
	if resp := get(t, ts.URL+"/jobs", key); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /jobs with ann's key: %d, want 200", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
}
