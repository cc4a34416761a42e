package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"calq/internal/serve/form"
	"calq/internal/serve/throttle"
	"calq/internal/serve/users"
)

// pageServer is a test server with its pages on: accounts, a sign-in
// throttle, and users alice, bob (not administrators) and root (one).
func pageServer(t *testing.T, mod func(*Options)) *testServer {
	t.Helper()
	var ts *testServer
	ts = newTestServer(t, func(o *Options) {
		o.Accounts = o.Users.(*users.Store)
		o.Throttle = throttle.New(throttle.Options{})
		if mod != nil {
			mod(o)
		}
	})
	ctx := context.Background()
	for _, u := range []users.User{{Name: "alice"}, {Name: "bob"}, {Name: "root", Admin: true}} {
		if _, err := ts.Users.Add(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := ts.Users.SetPassword(ctx, u.Name, u.Name+"-secret-pw"); err != nil {
			t.Fatal(err)
		}
	}
	return ts
}

// browserClient is an HTTP client with a cookie jar that does not follow
// redirects, as a browser's requests look to the server.
func browserClient(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// signIn posts the sign-in form and returns the response.
func signIn(t *testing.T, c *http.Client, base, name, password string) *http.Response {
	t.Helper()
	resp, err := c.PostForm(base+"/login", url.Values{"user": {name}, "password": {password}, "next": {"/history"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func pageGet(t *testing.T, c *http.Client, u string, header http.Header) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func sessionCookieOf(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	u, _ := url.Parse(base)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == sessionCookie {
			return ck.Value
		}
	}
	return ""
}

func TestSignIn(t *testing.T) {
	ts := pageServer(t, nil)
	c := browserClient(t)

	// Without a session, a page sends the browser to the sign-in form.
	status, _ := pageGet(t, c, ts.URL+"/history", nil)
	if status != http.StatusSeeOther {
		t.Fatalf("GET /history without a session: %d, want 303", status)
	}
	// A wrong password is refused and says so.
	if resp := signIn(t, c, ts.URL, "alice", "not-her-password"); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong password: %d, want 401", resp.StatusCode)
	}
	// A planted cookie (session fixation) is not a session.
	u, _ := url.Parse(ts.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: "planted-by-an-attacker", Path: "/"}})
	if status, _ := pageGet(t, c, ts.URL+"/history", nil); status != http.StatusSeeOther {
		t.Fatalf("planted cookie: %d, want 303 to the sign-in", status)
	}
	resp := signIn(t, c, ts.URL, "alice", "alice-secret-pw")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/history" {
		t.Fatalf("sign-in: %d to %q, want 303 to /history", resp.StatusCode, resp.Header.Get("Location"))
	}
	var set *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == sessionCookie {
			set = ck
		}
	}
	if set == nil || !set.HttpOnly || set.SameSite != http.SameSiteLaxMode || set.Value == "planted-by-an-attacker" {
		t.Fatalf("session cookie %+v: want a new HttpOnly, SameSite=Lax cookie", set)
	}
	first := set.Value
	if status, body := pageGet(t, c, ts.URL+"/history", nil); status != http.StatusOK || !strings.Contains(body, "Your jobs") {
		t.Fatalf("history after sign-in: %d", status)
	}
	// Signing in again gives a new id; the old one no longer works.
	signIn(t, c, ts.URL, "alice", "alice-secret-pw")
	second := sessionCookieOf(t, c, ts.URL)
	if second == "" || second == first {
		t.Fatalf("second sign-in kept the session id")
	}
	old := browserClient(t)
	old.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: first, Path: "/"}})
	if status, _ := pageGet(t, old, ts.URL+"/history", nil); status != http.StatusSeeOther {
		t.Fatalf("the session from before the second sign-in: %d, want 303", status)
	}
	// Signing out ends the session on the server too.
	resp, err := c.PostForm(ts.URL+"/logout", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	stolen := browserClient(t)
	stolen.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: second, Path: "/"}})
	if status, _ := pageGet(t, stolen, ts.URL+"/history", nil); status != http.StatusSeeOther {
		t.Fatalf("a session after sign-out: %d, want 303", status)
	}
}

func TestSignInThrottle(t *testing.T) {
	ts := pageServer(t, nil)
	c := browserClient(t)
	var last *http.Response
	for range 6 {
		last = signIn(t, c, ts.URL, "bob", "wrong-password")
		if last.StatusCode == http.StatusTooManyRequests {
			break
		}
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Fatalf("after repeated wrong passwords: %d (Retry-After %q), want 429 with Retry-After", last.StatusCode, last.Header.Get("Retry-After"))
	}
	// Even the right password waits its turn.
	if resp := signIn(t, c, ts.URL, "bob", "bob-secret-pw"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("right password while throttled: %d, want 429", resp.StatusCode)
	}
}

func TestCrossSiteRefused(t *testing.T) {
	ts := pageServer(t, nil)
	c := browserClient(t)
	signIn(t, c, ts.URL, "root", "root-secret-pw")
	for _, h := range []http.Header{
		{"Sec-Fetch-Site": {"cross-site"}},
		{"Origin": {"https://evil.example"}},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/admin/users", strings.NewReader("action=add&name=mallory&admin=1"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("cross-site POST with %v: %d, want 403", h, resp.StatusCode)
		}
	}
	if _, err := ts.Users.Get(context.Background(), "mallory"); err == nil {
		t.Fatal("a cross-site request added a user")
	}
}

func TestPagesOfOthers(t *testing.T) {
	ts := pageServer(t, func(o *Options) { o.Limits = form.Limits{MaxFile: 64 << 10} })
	alice, bob, root := browserClient(t), browserClient(t), browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	signIn(t, bob, ts.URL, "bob", "bob-secret-pw")
	signIn(t, root, ts.URL, "root", "root-secret-pw")

	resp := postPage(t, alice, ts.URL+"/convert", []upload{{"files", "note.txt", []byte("hello from alice\n")}}, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", resp.StatusCode)
	}
	job := resp.Header.Get("Location")
	if !regexp.MustCompile(`^/job/[0-9a-f]{32}$`).MatchString(job) {
		t.Fatalf("upload went to %q", job)
	}
	tests := []struct {
		name   string
		c      *http.Client
		path   string
		status int
	}{
		{"own job", alice, job, http.StatusOK},
		{"another's job", bob, job, http.StatusNotFound},
		{"another's file", bob, job + "/file/0", http.StatusNotFound},
		{"another's zip", bob, job + "/zip", http.StatusNotFound},
		{"another's events", bob, job + "/events", http.StatusNotFound},
		{"admin log as user", bob, "/admin/log", http.StatusForbidden},
		{"admin users as user", bob, "/admin/users", http.StatusForbidden},
		{"admin monitor as user", bob, "/admin/monitor", http.StatusForbidden},
		{"admin log", root, "/admin/log?user=alice", http.StatusOK},
		{"bad filter", alice, "/history?since=yesterday", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if status, _ := pageGet(t, tt.c, ts.URL+tt.path, nil); status != tt.status {
				t.Fatalf("GET %s: %d, want %d", tt.path, status, tt.status)
			}
		})
	}
	// Too large an upload gets a page that says so, and no job.
	resp = postPage(t, alice, ts.URL+"/convert", []upload{{"files", "big.txt", make([]byte, 100<<10)}}, nil)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "big.txt") ||
		!strings.Contains(string(b), "64 KiB") {
		t.Fatalf("too large an upload: %d\n%s", resp.StatusCode, b)
	}
}

// postPage posts a multipart form as the convert page does.
func postPage(t *testing.T, c *http.Client, u string, files []upload, fields map[string]string) *http.Response {
	t.Helper()
	body, ctype := multipartBody(t, files, fields)
	req, _ := http.NewRequest(http.MethodPost, u, body)
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
