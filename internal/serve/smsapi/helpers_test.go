package smsapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/internal/testclock"
	"calq/sched/journal"
	"calq/sms/store"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// env is a Service on a real journal in a temp dir, its users (alice and
// bob may send, carol may not, root is an administrator who may), their
// keys, and an HTTP server with the API behind the users' keys.
type env struct {
	t     testing.TB
	path  string
	jn    *journal.Journal
	box   *store.Store
	users *users.Store
	clock *testclock.Clock
	svc   *Service
	srv   *httptest.Server
	keys  map[string]string
	opts  Options
}

func newEnv(t testing.TB, tweak func(*Options)) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "calq.db"), clock: testclock.New(t0), keys: map[string]string{}}
	e.open(tweak)
	ctx := context.Background()
	for _, u := range []struct {
		name  string
		admin bool
		sms   bool
	}{{"alice", false, true}, {"bob", false, true}, {"carol", false, false}, {"root", true, true}} {
		_, err := e.users.Add(ctx, users.User{Name: u.name, Admin: u.admin})
		must(t, err)
		must(t, e.users.SetSMSRights(ctx, u.name, users.SMSRights{Allowed: u.sms, Numbers: []string{"modem-" + u.name}}))
		key, err := e.users.NewKey(ctx, u.name)
		must(t, err)
		e.keys[u.name] = key
	}
	return e
}

// open opens the journal, the stores, the Service and the server.
func (e *env) open(tweak func(*Options)) {
	t := e.t
	ctx := context.Background()
	jn, err := journal.Open(ctx, e.path, journal.Options{Now: e.clock.Now})
	must(t, err)
	t.Cleanup(func() { jn.Close() })
	box, err := store.Open(ctx, jn)
	must(t, err)
	us, err := users.Open(ctx, jn)
	must(t, err)
	policy, err := webhook.NewPolicy([]string{"127.0.0.0/8"})
	must(t, err)
	o := Options{Store: box, Journal: jn, Rights: us, Policy: policy, Rate: 1000, Quota: 10000,
		Push: webhook.Options{Base: time.Millisecond, Max: 2 * time.Millisecond}}
	if tweak != nil {
		tweak(&o)
	}
	svc, err := New(ctx, o)
	must(t, err)
	m := http.NewServeMux()
	svc.Register(m, e.auth)
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	e.jn, e.box, e.users, e.svc, e.srv, e.opts = jn, box, us, svc, srv, o
}

// auth lets in the user of the request's key, as calq serve does.
func (e *env) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := users.KeyFromRequest(r)
		if !ok {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		u, err := e.users.Authenticate(r.Context(), key)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(users.WithUser(r.Context(), u)))
	})
}

// do makes a request as user and returns the status, the body and the
// reply's headers.
func (e *env) do(user, method, path, body string) (int, []byte, http.Header) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	must(e.t, err)
	req.Header.Set("Authorization", "Bearer "+e.keys[user])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(e.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(e.t, err)
	return resp.StatusCode, b, resp.Header
}

// send posts body as user and wants 202; it returns the accepted.
func (e *env) send(user, body string) []Accepted {
	e.t.Helper()
	status, b, _ := e.do(user, "POST", "/sms", body)
	if status != http.StatusAccepted {
		e.t.Fatalf("POST /sms %s as %s = %d %s, want 202", body, user, status, b)
	}
	var acc []Accepted
	must(e.t, json.Unmarshal(b, &acc))
	return acc
}

// outboxSize is how many messages the outbox holds.
func (e *env) outboxSize() int {
	ms, err := e.box.ListSMS(context.Background(), store.SMSFilter{})
	must(e.t, err)
	return len(ms)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func decodeJSON[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}
