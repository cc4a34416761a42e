package serve

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"calq/internal/serve/throttle"
	"calq/internal/serve/users"
)

// TestSignInBurst: wrong passwords sent at once for one user from one
// address get exactly the throttle's free attempts checked (4: three
// free failures and the one after), each refused one with 429 and
// Retry-After.
func TestSignInBurst(t *testing.T) {
	ts := pageServer(t, nil)
	before := users.Hashes.Stats().Done
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 64 {
		c := browserClient(t)
		wg.Go(func() {
			<-start
			resp, err := c.PostForm(ts.URL+"/login", url.Values{"user": {"bob"}, "password": {"wrong-password"}})
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			status := resp.StatusCode
			if status == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
				status = 0
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	if statuses[http.StatusUnauthorized] != 4 || statuses[http.StatusTooManyRequests] != 60 {
		t.Errorf("64 wrong passwords at once: %v, want 4 checked (401) and 60 refused (429 with Retry-After)", statuses)
	}
	if got := users.Hashes.Stats().Done - before; got != 4 {
		t.Errorf("64 wrong passwords at once: %d hashes, want 4", got)
	}
}

// TestSignInBusy: while the password hashes are all taken, a sign-in is
// refused with 429 and Retry-After, and is not charged to the throttle:
// once a place is free the right password signs in.
func TestSignInBusy(t *testing.T) {
	ts := pageServer(t, nil)
	for users.Hashes.TryEnter() {
		defer users.Hashes.Leave()
	}
	for i := range 6 {
		resp := signIn(t, browserClient(t), ts.URL, "alice", "alice-secret-pw")
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("sign-in %d while every hash place is taken: %d (Retry-After %q), want 429 with Retry-After",
				i, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	users.Hashes.Leave()
	defer users.Hashes.TryEnter() // for the deferred Leave
	if resp := signIn(t, browserClient(t), ts.URL, "alice", "alice-secret-pw"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in once a place is free: %d, want 303: the refused ones were not charged", resp.StatusCode)
	}
}

// TestSignInLog: the log names the user of a sign-in only when the name
// is a user's: a password typed in the name field stays out of it.
func TestSignInLog(t *testing.T) {
	var log bytes.Buffer
	var mu sync.Mutex
	ts := pageServer(t, func(o *Options) {
		o.Log = slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &mu}, nil))
	})
	for _, name := range []string{"Tr0ub4dor&3", "Tr0ub4dor-3", "bob"} {
		signIn(t, browserClient(t), ts.URL, name, "wrong-password")
	}
	mu.Lock()
	got := log.String()
	mu.Unlock()
	for _, secret := range []string{"Tr0ub4dor"} {
		if strings.Contains(got, secret) {
			t.Errorf("the log holds %q, a name that is no user's:\n%s", secret, got)
		}
	}
	if strings.Count(got, "unknown user") != 2 || !strings.Contains(got, "user=bob") {
		t.Errorf("log:\n%s\nwant two sign-ins of an unknown user and one of bob", got)
	}
}

// lockedWriter is a writer safe for the server's goroutines.
type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestSignInFormBounded: the sign-in form, read before anyone is known,
// is small.
func TestSignInFormBounded(t *testing.T) {
	ts := pageServer(t, nil)
	v := url.Values{"user": {"bob"}, "password": {"wrong-password"}, "next": {"/" + strings.Repeat("a", 16<<10)}}
	resp, err := http.PostForm(ts.URL+"/login", v)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a sign-in form of 16 KiB: %d, want 400", resp.StatusCode)
	}
}

// TestAdminPasswordBusy: the administrator's add with a password, or new
// password, while every hash place is taken: 429 with Retry-After, and
// no user left behind without the password asked for.
func TestAdminPasswordBusy(t *testing.T) {
	ts := pageServer(t, nil)
	c := browserClient(t)
	signIn(t, c, ts.URL, "root", "root-secret-pw")
	for users.Hashes.TryEnter() {
		defer users.Hashes.Leave()
	}
	for _, v := range []url.Values{
		{"action": {"add"}, "name": {"carol"}, "password": {"carol-secret-pw"}},
		{"action": {"password"}, "name": {"bob"}, "password": {"bob-new-secret"}},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/admin/users", strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s while every hash place is taken: %d (Retry-After %q), want 429 with Retry-After",
				v.Get("action"), resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	if _, err := ts.Users.Get(context.Background(), "carol"); !errors.Is(err, users.ErrNoUser) {
		t.Errorf("carol after a refused add: %v, want no such user", err)
	}
}

// TestSignInThrottleKeys: a name no user can have (here 4 KiB long)
// takes no room in the throttle: only its address is counted.
func TestSignInThrottleKeys(t *testing.T) {
	var l *throttle.Limiter
	ts := pageServer(t, func(o *Options) {
		l = throttle.New(throttle.Options{})
		o.Throttle = l
	})
	signIn(t, browserClient(t), ts.URL, strings.Repeat("n", 4<<10), "wrong-password")
	if l.Len() != 1 {
		t.Errorf("a sign-in as a 4 KiB name: the throttle holds %d keys, want 1 (the address)", l.Len())
	}
}
