package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/internal/dburl"
	"calq/sms/emu"
)

// smsWait bounds a wait for something calq serve does with SMS: a bound
// on a failure, not a timing.
const smsWait = 2 * time.Minute

// pduRecord is one PDU the emulator accepted (its --log line).
type pduRecord struct {
	Device string `json:"device"`
	MR     int    `json:"mr"`
	PDU    string `json:"pdu"`
}

// pduLog is the emulator's log of accepted PDUs, for the test to count
// and wait on; each Write is one line (emu writes a line per call).
type pduLog struct {
	mu      sync.Mutex
	recs    []pduRecord
	changed chan struct{} // closed and replaced at each record
	hook    func(pduRecord)
}

func newPDULog() *pduLog { return &pduLog{changed: make(chan struct{})} }

func (l *pduLog) Write(p []byte) (int, error) {
	var r pduRecord
	if err := json.Unmarshal(p, &r); err != nil {
		return 0, err
	}
	l.mu.Lock()
	l.recs = append(l.recs, r)
	close(l.changed)
	l.changed = make(chan struct{})
	hook := l.hook
	l.mu.Unlock()
	if hook != nil {
		hook(r)
	}
	return len(p), nil
}

// all returns the PDUs so far and a channel closed at the next one.
func (l *pduLog) all() ([]pduRecord, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]pduRecord(nil), l.recs...), l.changed
}

// await waits until n PDUs went out and returns them.
func (l *pduLog) await(t *testing.T, n int) []pduRecord {
	t.Helper()
	deadline := time.After(smsWait)
	for {
		recs, next := l.all()
		if len(recs) >= n {
			return recs
		}
		select {
		case <-next:
		case <-deadline:
			t.Fatalf("%d PDUs went out within %v, want %d", len(recs), smsWait, n)
		}
	}
}

// duplicates lists the PDUs that went out more than once.
func duplicates(recs []pduRecord) []string {
	seen := map[string]int{}
	var dups []string
	for _, r := range recs {
		if seen[r.PDU]++; seen[r.PDU] == 2 {
			dups = append(dups, r.PDU)
		}
	}
	return dups
}

// hookCall is one request a receiver got.
type hookCall struct {
	Method, Path string
	Query        url.Values
	Body         []byte
}

// event is the JSON of a push (smsapi.Event), as a client reads it.
func (c hookCall) event(t *testing.T) map[string]any {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(c.Body, &e); err != nil {
		t.Fatalf("%s %s: body %q is not JSON: %v", c.Method, c.Path, c.Body, err)
	}
	return e
}

// receiver is an HTTP server on loopback that records every request it
// gets (reportUrl, dlr-url, the inbound webhook) and answers 204.
type receiver struct {
	URL   string
	calls chan hookCall
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{calls: make(chan hookCall, 1000)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.calls <- hookCall{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Body: b}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// await returns the first call (from now) that want accepts.
func (r *receiver) await(t *testing.T, what string, want func(hookCall) bool) hookCall {
	t.Helper()
	deadline := time.After(smsWait)
	for {
		select {
		case c := <-r.calls:
			if want(c) {
				return c
			}
		case <-deadline:
			t.Fatalf("no %s within %v", what, smsWait)
		}
	}
}

// smsRig is calq serve holding emulated modems (emulated in the test's
// process, on pseudo-terminals calq serve opens), with a user allowed to
// send.
type smsRig struct {
	emu   *emu.Emulator
	pdus  *pduLog
	dir   string
	db    string
	key   string
	args  []string // calq serve's arguments
	serve *serveProc
}

// newSMSRig starts o's modems and calq serve on them (its journal under
// dir), after giving user ann the right to send and setArgs of calq
// users set. Reports come quickly: 50 ms unless o says.
func newSMSRig(t *testing.T, o emu.Options, db string, setArgs []string, serveArgs ...string) *smsRig {
	t.Helper()
	pdus := newPDULog()
	o.Log = pdus
	if o.ReportDelay == 0 {
		o.ReportDelay = 50 * time.Millisecond
	}
	e, err := emu.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	dir := t.TempDir()
	if db == "" {
		db = filepath.Join(dir, "calq.db")
	}
	r := &smsRig{emu: e, pdus: pdus, dir: dir, db: db}
	users := []string{"--db", db}
	if dburl.IsPostgres(db) {
		users = nil // calq serve keeps its users in this machine's journal
	}
	calqOut(t, serveEnv(dir), append([]string{"users", "add", "ann"}, users...)...)
	r.key = strings.TrimSpace(calqOut(t, serveEnv(dir), append([]string{"users", "key", "ann"}, users...)...))
	calqOut(t, serveEnv(dir), append(append([]string{"users", "set", "ann", "--sms", "--sms-rate", "1000"}, users...), setArgs...)...)
	r.args = []string{"--send-every", "50ms", "--poll-every", "200ms", "--webhook-allow", "127.0.0.1", "--instances", "1"}
	for _, d := range e.Devices() {
		r.args = append(r.args, "--device", d)
	}
	r.args = append(r.args, serveArgs...)
	r.start(t)
	return r
}

// start starts calq serve (again) on the rig's journal and modems, and
// waits until it holds them.
func (r *smsRig) start(t *testing.T) {
	t.Helper()
	r.serve = startServeDB(t, r.dir, r.db, r.args...)
	if !r.serve.stderr.await("holding the modems", smsWait) {
		t.Fatalf("calq serve does not hold the modems:\n%s", r.serve.stderr)
	}
}

// send posts body to POST /sms as ann and returns the ids of the 202.
func (r *smsRig) send(t *testing.T, body map[string]any) []int64 {
	t.Helper()
	b, _ := json.Marshal(body)
	status, reply, _ := request(t, http.MethodPost, r.serve.URL+"/sms", r.key, bytes.NewReader(b), "application/json")
	var acc []struct {
		ID int64 `json:"id"`
	}
	if status != http.StatusAccepted || json.Unmarshal(reply, &acc) != nil || len(acc) == 0 {
		t.Fatalf("POST /sms %s: %d %s", b, status, reply)
	}
	ids := make([]int64, len(acc))
	for i, a := range acc {
		ids[i] = a.ID
	}
	return ids
}

// message is GET /sms/ID as ann.
func (r *smsRig) message(t *testing.T, id int64) smsMessage {
	t.Helper()
	status, body, _ := request(t, http.MethodGet, r.serve.URL+"/sms/"+strconv.FormatInt(id, 10), r.key, nil, "")
	var m smsMessage
	if status != http.StatusOK || json.Unmarshal(body, &m) != nil {
		t.Fatalf("GET /sms/%d: %d %s", id, status, body)
	}
	return m
}

// smsMessage is what a client reads of GET /sms/ID.
type smsMessage struct {
	ID     int64  `json:"id"`
	State  string `json:"state"`
	Reason string `json:"reason"`
	Parts  []struct {
		Seq     int             `json:"seq"`
		State   string          `json:"state"`
		Reports json.RawMessage `json:"reports"`
	} `json:"parts"`
}
