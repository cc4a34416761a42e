package sendsms

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/serve/smsapi"
	"calq/internal/serve/throttle"
	"calq/internal/serve/users"
	"calq/internal/testclock"
	"calq/sched/journal"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts")

var t0 = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

// recorder is a Sender that records what it is asked to send and
// answers as smsapi's Service does: a message per recipient, scheduled
// when At is to come. Its refusals stand for the Service's: user mallory
// may not send SMS, user quinn is over her rate, number 12 is not one.
type recorder struct {
	now  func() time.Time
	mu   sync.Mutex
	sent []string
}

func (r *recorder) Send(ctx context.Context, u users.User, req smsapi.Request) ([]smsapi.Accepted, error) {
	switch {
	case u.Name == "mallory":
		return nil, smsapi.ErrNotAllowed
	case u.Name == "quinn":
		return nil, &smsapi.QuotaError{Which: "rate", Limit: 10, Reset: r.now().Add(42 * time.Second)}
	case slices.Contains(req.To, "12"):
		return nil, &smsapi.InputError{Field: "to", Value: "12", Err: errors.New(`"12" is not a phone number: 2 digits, want 3 to 20`)}
	case req.Text == "the outbox fails":
		return nil, errors.New("add messages: database is locked")
	}
	text := req.Text // shown quoted: JSON would hide 8-bit data's bytes
	req.Text = ""
	b, _ := json.Marshal(req)
	r.mu.Lock()
	r.sent = append(r.sent, fmt.Sprintf("%s %q %s", u.Name, text, b))
	r.mu.Unlock()
	var acc []smsapi.Accepted
	for i, to := range req.To {
		state := "queued"
		if req.At.After(r.now()) {
			state = "scheduled"
		}
		acc = append(acc, smsapi.Accepted{ID: int64(i + 1), To: to, Parts: 1, State: state})
	}
	return acc, nil
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sent
	r.sent = nil
	return s
}

// fixture is a sendsms Handler on a real users.Store in a temp journal,
// behind a real HTTP server on loopback.
type fixture struct {
	srv  *httptest.Server
	rec  *recorder
	keys map[string]string // user → key
	lim  *throttle.Limiter
}

func newFixture(t *testing.T, lim throttle.Options) *fixture {
	t.Helper()
	ctx := context.Background()
	c := testclock.New(t0)
	_, us := openUsers(t, c)
	f := &fixture{rec: &recorder{now: c.Now}, keys: map[string]string{}}
	for _, name := range []string{"bob", "alice", "mallory", "quinn", "carol"} {
		if _, err := us.Add(ctx, users.User{Name: name}); err != nil {
			t.Fatal(err)
		}
		key, err := us.NewKey(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		f.keys[name] = key
	}
	if err := us.SetDisabled(ctx, "carol", true); err != nil {
		t.Fatal(err)
	}
	lim.Now = c.Now
	f.lim = throttle.New(lim)
	h := &Handler{Sender: f.rec, Users: us, Throttle: f.lim, Now: c.Now}
	m := http.NewServeMux()
	h.Register(m, nil)
	f.srv = httptest.NewServer(m)
	t.Cleanup(f.srv.Close)
	return f
}

// openUsers opens a journal in a temp dir on clock c, and its users.
func openUsers(t *testing.T, c *testclock.Clock) (*journal.Journal, *users.Store) {
	t.Helper()
	jn, err := journal.Open(context.Background(), filepath.Join(t.TempDir(), "calq.db"), journal.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { jn.Close() })
	us, err := users.Open(context.Background(), jn)
	if err != nil {
		t.Fatal(err)
	}
	return jn, us
}

// exchange is one request of a transcript; {name} in target, headers
// and body stands for user name's key.
type exchange struct {
	name, method, target string
	header               map[string]string
	body                 string
}

// do sends x and writes the exchange as a transcript: the request, the
// reply's status, Retry-After and body, and what the Sender was asked.
func (f *fixture) do(t *testing.T, w io.Writer, x exchange) {
	t.Helper()
	keyed := func(s string) string {
		for name, key := range f.keys {
			s = strings.ReplaceAll(s, "{"+name+"}", key)
		}
		return s
	}
	req, err := http.NewRequest(x.method, f.srv.URL+keyed(x.target), strings.NewReader(keyed(x.body)))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, "### %s\n> %s %s\n", x.name, x.method, x.target)
	for _, k := range slices.Sorted(maps.Keys(x.header)) {
		req.Header.Set(k, keyed(x.header[k]))
		fmt.Fprintf(w, "> %s: %s\n", k, x.header[k])
	}
	if x.body != "" {
		fmt.Fprintf(w, ">\n> %s\n", x.body)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Fprintf(w, "< %s\n", resp.Status)
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		fmt.Fprintf(w, "< Retry-After: %s\n", ra)
	}
	fmt.Fprintf(w, "< %s\n", b)
	for _, s := range f.rec.take() {
		fmt.Fprintf(w, "= send %s\n", s)
	}
	fmt.Fprintln(w)
}

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("transcript differs from %s (run with -update to see how):\n%s", path, diff(string(want), got))
	}
}

// diff shows the first line where want and got differ.
func diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
	return ""
}
