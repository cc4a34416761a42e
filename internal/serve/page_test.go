package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"calq/convert/contacts"
	pdfpkg "calq/convert/pdf"
	"calq/internal/serve/form"
	"calq/internal/serve/jobs"
	"calq/internal/serve/profiles"
	"calq/internal/serve/throttle"
	"calq/internal/serve/users"
	"calq/sched/journal"
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
	return pageDo(t, c, req)
}

// pagePost posts a form (application/x-www-form-urlencoded) as a page does.
func pagePost(t *testing.T, c *http.Client, u string, v url.Values) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return pageDo(t, c, req)
}

// pageDo sends req and returns the status and the body.
func pageDo(t *testing.T, c *http.Client, req *http.Request) (int, string) {
	t.Helper()
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

// TestSessionCookieTLS: under TLS the session cookie is Secure and
// __Host- prefixed (host-only, for the whole site).
func TestSessionCookieTLS(t *testing.T) {
	ts := pageServer(t, nil)
	req := httptest.NewRequest(http.MethodPost, "https://calq.example/login",
		strings.NewReader(url.Values{"user": {"alice"}, "password": {"alice-secret-pw"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.TLS = &tls.ConnectionState{}
	w := httptest.NewRecorder()
	ts.Handler().ServeHTTP(w, req)
	cookies := w.Result().Cookies()
	if w.Code != http.StatusSeeOther || len(cookies) != 1 {
		t.Fatalf("sign-in over TLS: %d, cookies %v", w.Code, cookies)
	}
	c := cookies[0]
	if c.Name != sessionCookieTLS || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" {
		t.Errorf("session cookie over TLS: %+v", c)
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
	if resp.StatusCode != http.StatusRequestEntityTooLarge ||
		!strings.Contains(textOf(string(b)), "“big.txt” is larger than "+humanBytes(64<<10)+", the most one file may be.") {
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

// finalProgress reads a job's events until the job is final and returns
// the last progress.
func finalProgress(t *testing.T, c *http.Client, base, job string) progressView {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+job+"/events", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, ct)
	}
	var last progressView
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if err := json.Unmarshal([]byte(data), &last); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
		}
	}
	if !last.Final {
		t.Fatalf("the events ended before the job did: %+v", last)
	}
	return last
}

// TestPartialUpload: a page's job keeps the PDFs of the files that
// converted when another failed, and says which failed and why.
func TestPartialUpload(t *testing.T) {
	ts := pageServer(t, nil)
	c := browserClient(t)
	signIn(t, c, ts.URL, "alice", "alice-secret-pw")
	broken, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "broken", "random-bytes.docx"))
	if err != nil {
		t.Fatal(err)
	}
	resp := postPage(t, c, ts.URL+"/convert", []upload{
		{"files", "a-good.txt", []byte("a good file\n")},
		{"files", "b-broken.docx", broken},
	}, map[string]string{"userPassword": "open-sesame-123", "ownerPassword": "owner-pw-4567"})
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	job := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || job == "" {
		t.Fatalf("upload: %d\n%s", resp.StatusCode, b)
	}
	p := finalProgress(t, c, ts.URL, job)
	if p.State != jobs.Partial || p.Label != "done, some files failed" || len(p.Files) != 2 || p.Files[0].State != jobs.FileDone || p.Files[1].State != jobs.FileFailed ||
		p.Files[1].Reason == "" {
		t.Fatalf("progress: %+v, want partial (done, some files failed) with b-broken.docx failed for a reason", p)
	}
	status, page := pageGet(t, c, ts.URL+job, nil)
	if status != 200 || !strings.Contains(page, p.Files[1].Reason) || !strings.Contains(page, "a-good.pdf") ||
		strings.Contains(page, "b-broken.pdf") {
		t.Fatalf("job page: %d\n%s", status, page)
	}
	// The passwords typed in the form are nowhere on the pages or in
	// the journal.
	for _, pw := range []string{"open-sesame-123", "owner-pw-4567"} {
		if strings.Contains(page, pw) {
			t.Errorf("the job's page shows a password")
		}
		if db, _ := os.ReadFile(ts.DB); bytes.Contains(db, []byte(pw)) {
			t.Errorf("the journal holds a password")
		}
	}
	// The PDF is encrypted: qpdf needs the password.
	status, pdf := pageGet(t, c, ts.URL+job+"/file/0", nil)
	if status != 200 || !strings.HasPrefix(pdf, "%PDF") || !strings.Contains(pdf, "/Encrypt") {
		t.Fatalf("file 0: %d, encrypted %v", status, strings.Contains(pdf, "/Encrypt"))
	}
	status, zipped := pageGet(t, c, ts.URL+job+"/zip", nil)
	if status != 200 || !strings.HasPrefix(zipped, "PK") {
		t.Fatalf("zip: %d", status)
	}
	if names, _ := zipEntries(t, []byte(zipped)); len(names) != 1 || names[0] != "a-good.pdf" {
		t.Fatalf("zip holds %v, want a-good.pdf", names)
	}
	// Once --keep deleted the files, the pages say so.
	ts.sweepOnce(context.Background()) // not yet: nothing changes
	if status, _ := pageGet(t, c, ts.URL+job+"/file/0", nil); status != 200 {
		t.Fatalf("file 0 before --keep: %d", status)
	}
	if err := ts.Jobs.Expire(context.Background(), strings.TrimPrefix(job, "/job/")); err != nil {
		t.Fatal(err)
	}
	if _, page := pageGet(t, c, ts.URL+job, nil); !strings.Contains(page, `id="expired"`) || strings.Contains(page, "/view/0") {
		t.Errorf("an expired job's page does not say its files are deleted:\n%s", page)
	}
	if _, page := pageGet(t, c, ts.URL+"/history", nil); !strings.Contains(page, "deleted after 24\u00a0hours") {
		t.Errorf("the history does not say the result is deleted")
	}
	for _, path := range []string{"/file/0", "/view/0", "/zip"} {
		if status, _ := pageGet(t, c, ts.URL+job+path, nil); status != http.StatusGone {
			t.Errorf("%s of an expired job: %d, want 410", path, status)
		}
	}
}

// TestProfilesAndContactsPages: a user's own profile applies to the
// convert page's job; contacts are added and removed per user.
func TestProfilesAndContactsPages(t *testing.T) {
	var book *contacts.Book
	ts := pageServer(t, func(o *Options) {
		j, err := journal.Open(context.Background(), filepath.Join(t.TempDir(), "book.db"), journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		if book, err = contacts.Open(context.Background(), j); err != nil {
			t.Fatal(err)
		}
		o.Contacts = BookContacts{Book: book}
		ps, err := profiles.Open(filepath.Join(t.TempDir(), "profiles"))
		if err != nil {
			t.Fatal(err)
		}
		o.Profiles = ps
	})
	alice, bob := browserClient(t), browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	signIn(t, bob, ts.URL, "bob", "bob-secret-pw")
	form := func(c *http.Client, path string, v url.Values) (int, string) { return pagePost(t, c, ts.URL+path, v) }
	tests := []struct {
		name   string
		c      *http.Client
		path   string
		v      url.Values
		status int
		want   string
	}{
		{"add a contact", alice, "/contacts", url.Values{"action": {"save"}, "name": {"boss"}, "address": {"boss@example.org"}}, 200, "boss@example.org"},
		{"bad address", alice, "/contacts", url.Values{"action": {"save"}, "name": {"x"}, "address": {"not an address"}}, 400, "not an address"},
		{"another's book", bob, "/contacts", url.Values{"action": {"save"}, "name": {"boss"}, "address": {"other@example.org"}}, 200, "other@example.org"},
		{"save a profile", alice, "/profiles", url.Values{"action": {"save"}, "name": {"legal"}, "watermark": {"CONFIDENTIAL"}, "title": {"Alice's title"}}, 200, "legal"},
		{"bad profile name", alice, "/profiles", url.Values{"action": {"save"}, "name": {"../x"}}, 400, "../x"},
		{"bad pdfa", alice, "/profiles", url.Values{"action": {"save"}, "name": {"p"}, "pdfa": {"7"}}, 400, "PDF/A"},
		{"unknown action", alice, "/contacts", url.Values{"action": {"drop"}}, 400, "Unknown action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, page := form(tt.c, tt.path, tt.v)
			if status != tt.status || !strings.Contains(page, html.EscapeString(tt.want)) {
				t.Fatalf("POST %s: %d, want %d with %q\n%s", tt.path, status, tt.status, tt.want, page)
			}
		})
	}
	if a, _ := book.Owner("alice").Get(context.Background(), "boss"); a.Address != "boss@example.org" {
		t.Errorf("alice's boss is %q", a.Address)
	}
	if b, _ := book.Owner("bob").Get(context.Background(), "boss"); b.Address != "other@example.org" {
		t.Errorf("bob's boss is %q", b.Address)
	}
	if _, page := pageGet(t, bob, ts.URL+"/profiles", nil); strings.Contains(page, "legal") {
		t.Errorf("bob sees alice's profile")
	}
	// The profile's watermark and title reach the PDF.
	resp := postPage(t, alice, ts.URL+"/convert", []upload{{"files", "memo.txt", []byte("a memo\n")}}, map[string]string{"profile": "legal"})
	resp.Body.Close()
	job := resp.Header.Get("Location")
	if p := finalProgress(t, alice, ts.URL, job); p.State != jobs.Done {
		t.Fatalf("job with the profile: %+v", p)
	}
	_, pdf := pageGet(t, alice, ts.URL+job+"/file/0", nil)
	path := pdfFile(t, []byte(pdf))
	if md, err := pdfpkg.ReadMetadata(context.Background(), path); err != nil || md["Title"] != "Alice's title" {
		t.Errorf("the PDF's title: %+v %v", md, err)
	}
	// Bob cannot use alice's profile.
	resp = postPage(t, bob, ts.URL+"/convert", []upload{{"files", "memo.txt", []byte("a memo\n")}}, map[string]string{"profile": "legal"})
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "legal") {
		t.Errorf("bob with alice's profile: %d", resp.StatusCode)
	}
	// Removing works.
	if status, page := form(alice, "/contacts", url.Values{"action": {"remove"}, "name": {"boss"}}); status != 200 || strings.Contains(page, "boss@example.org") {
		t.Errorf("remove a contact: %d", status)
	}
}

// TestAdminUsersPage: the administrator's changes to users, and what
// they do to the users' sessions and keys.
func TestAdminUsersPage(t *testing.T) {
	ts := pageServer(t, nil)
	root, bob := browserClient(t), browserClient(t)
	signIn(t, root, ts.URL, "root", "root-secret-pw")
	signIn(t, bob, ts.URL, "bob", "bob-secret-pw")
	key, err := ts.Users.NewKey(context.Background(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		v      url.Values
		status int
		want   string
	}{
		{"short password", url.Values{"action": {"add"}, "name": {"carol"}, "password": {"x1y2z3"}}, 400, "password"},
		{"bad name", url.Values{"action": {"add"}, "name": {"car ol"}}, 400, "car ol"},
		{"add", url.Values{"action": {"add"}, "name": {"carol"}, "password": {"carol-secret-pw"}, "admin": {"1"}}, 200, "Added carol"},
		{"taken", url.Values{"action": {"add"}, "name": {"carol"}}, 400, "exists"},
		{"unadmin self", url.Values{"action": {"unadmin"}, "name": {"root"}}, 400, "your own"},
		{"disable self", url.Values{"action": {"disable"}, "name": {"root"}}, 400, "yourself"},
		{"unadmin", url.Values{"action": {"unadmin"}, "name": {"carol"}}, 200, "carol"},
		{"revoke", url.Values{"action": {"revoke"}, "name": {"bob"}, "confirm": {"yes"}}, 200, "Revoked 1 API key of bob"},
		{"disable", url.Values{"action": {"disable"}, "name": {"bob"}, "confirm": {"yes"}}, 200, "bob is disabled"},
		{"no such user", url.Values{"action": {"disable"}, "name": {"nobody"}, "confirm": {"yes"}}, 400, "nobody"},
		{"reset", url.Values{"action": {"password"}, "name": {"alice"}, "password": {"alice-new-pw-1"}}, 200, "alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, page := pagePost(t, root, ts.URL+"/admin/users", tt.v)
			if status != tt.status || !strings.Contains(page, html.EscapeString(tt.want)) {
				t.Fatalf("%v: %d, want %d with %q", tt.v, status, tt.status, tt.want)
			}
			for _, pw := range tt.v["password"] {
				if strings.Contains(page, pw) {
					t.Errorf("the page shows the password")
				}
			}
		})
	}
	if u, err := ts.Users.Get(context.Background(), "carol"); err != nil || u.Admin || !u.Password {
		t.Errorf("carol: %+v %v, want no admin, a password", u, err)
	}
	// Disabled: bob's session, key and password all stop working.
	if status, _ := pageGet(t, bob, ts.URL+"/history", nil); status != http.StatusSeeOther {
		t.Errorf("a disabled user's session: %d, want 303 to the sign-in", status)
	}
	if resp := get(t, ts.URL+"/jobs", key); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a revoked key: %d", resp.StatusCode)
	}
	if resp := signIn(t, browserClient(t), ts.URL, "bob", "bob-secret-pw"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a disabled user signs in: %d", resp.StatusCode)
	}
	if resp := signIn(t, browserClient(t), ts.URL, "alice", "alice-new-pw-1"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("alice with her new password: %d", resp.StatusCode)
	}
}

// TestJobEvents: a job's page hears each file's progress as it happens,
// not only the end.
func TestJobEvents(t *testing.T) {
	ts := pageServer(t, nil)
	c := browserClient(t)
	signIn(t, c, ts.URL, "alice", "alice-secret-pw")
	var files []upload
	for i := range 6 {
		files = append(files, upload{"files", fmt.Sprintf("long%d.txt", i), longText(300)})
	}
	resp := postPage(t, c, ts.URL+"/convert", files, nil)
	resp.Body.Close()
	job := resp.Header.Get("Location")
	req, _ := http.NewRequest(http.MethodGet, ts.URL+job+"/events", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []progressView
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var v progressView
			if err := json.Unmarshal([]byte(data), &v); err != nil {
				t.Fatal(err)
			}
			events = append(events, v)
		}
	}
	if len(events) < 2 || !events[len(events)-1].Final || events[len(events)-1].Done != 6 {
		t.Fatalf("events: %+v", events)
	}
	between := 0
	for i, v := range events {
		if i > 0 && v.Done < events[i-1].Done {
			t.Errorf("files done went back: %d then %d", events[i-1].Done, v.Done)
		}
		if v.Done > 0 && v.Done < 6 {
			between++
		}
	}
	if between == 0 {
		t.Errorf("no event between the start and the end: %+v", events)
	}
}

// TestSetupPage: before the first user exists, the root answers 200 with
// the page that says how to make the administrator (it is the API's home,
// which Gotenberg's clients probe with GET /); every other page answers
// 503, as it cannot be used yet.
func TestSetupPage(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.Accounts = o.Users.(*users.Store) })
	for _, c := range []struct {
		path   string
		status int
	}{{"/", http.StatusOK}, {"/history", http.StatusServiceUnavailable}, {"/login", http.StatusServiceUnavailable}} {
		resp, err := http.Get(ts.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b := body(t, resp)
		if resp.StatusCode != c.status || !strings.Contains(string(b), "calq users add NAME --admin") {
			t.Errorf("GET %s: %d %.80q, want %d and the setup page", c.path, resp.StatusCode, b, c.status)
		}
	}
}
