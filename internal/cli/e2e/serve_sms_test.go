package e2e

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"calq/sms/emu"
	"calq/sms/pdu"
)

// TestServeSMSPushes: calq serve holding an emulated modem sends what
// POST /sms and Kannel's sendsms accept, and pushes what becomes of it:
// the emulator's status report reaches the message's reportUrl as
// sms.report then sms.final, and the dlr-url of sendsms as Kannel's GET
// with its codes replaced; a message the modem receives reaches its
// user's inbound webhook.
func TestServeSMSPushes(t *testing.T) {
	hooks := newReceiver(t)
	r := newSMSRig(t, emu.Options{}, "", nil)
	modem := filepath.Base(r.emu.Devices()[0]) // calq names a --device modem by its file
	calqOut(t, serveEnv(r.dir), "users", "set", "--db", r.db, "ann", "--sms-number", modem, "--sms-inbound-url", hooks.URL+"/inbound")

	t.Run("POST /sms", func(t *testing.T) {
		ids := r.send(t, map[string]any{"to": "+4915112345678", "text": "calq e2e: report me", "reportUrl": hooks.URL + "/report"})
		id := float64(ids[0])
		recs := r.pdus.await(t, 1)
		sub, err := pdu.Decode(recs[0].PDU, pdu.MO)
		if err != nil || sub.DA != "+4915112345678" || !sub.SRR {
			t.Errorf("the modem got %+v (%v), want a SUBMIT to +4915112345678 asking for a report", sub, err)
		}
		report := hooks.await(t, "sms.report", func(c hookCall) bool {
			return c.Path == "/report" && c.event(t)["type"] == "sms.report" && c.event(t)["id"] == id
		})
		if e := report.event(t); e["state"] != "delivered" || e["report"] == nil {
			t.Errorf("sms.report %s, want delivered with the report", report.Body)
		}
		final := hooks.await(t, "sms.final", func(c hookCall) bool {
			return c.Path == "/report" && c.event(t)["type"] == "sms.final" && c.event(t)["id"] == id
		})
		if e := final.event(t); e["state"] != "delivered" || e["to"] != "+4915112345678" {
			t.Errorf("sms.final %s, want delivered to +4915112345678", final.Body)
		}
	})

	t.Run("sendsms", func(t *testing.T) {
		q := url.Values{"username": {"ann"}, "password": {r.key}, "to": {"+4915187654321"}, "text": {"calq e2e: kannel"},
			"dlr-mask": {"1"}, "dlr-url": {hooks.URL + "/dlr?id=%I&type=%d&to=%P&answer=%A&modem=%i"}}
		status, body, _ := request(t, http.MethodGet, r.serve.URL+"/cgi-bin/sendsms?"+q.Encode(), "", nil, "")
		if status != http.StatusAccepted || !strings.HasPrefix(string(body), "0: Accepted for delivery") {
			t.Fatalf("sendsms: %d %q, want 202 0: Accepted for delivery", status, body)
		}
		dlr := hooks.await(t, "the dlr-url's GET", func(c hookCall) bool { return c.Path == "/dlr" })
		got := dlr.Query
		if dlr.Method != http.MethodGet || got.Get("type") != "1" || got.Get("to") != "+4915187654321" ||
			!strings.Contains(got.Get("answer"), " stat:DELIVRD err:000") || got.Get("modem") != modem {
			t.Errorf("dlr-url got %s %v, want a GET of type 1 to +4915187654321, answer with stat:DELIVRD, modem %s", dlr.Method, got, modem)
		}
		if _, err := strconv.ParseInt(got.Get("id"), 10, 64); err != nil {
			t.Errorf("dlr-url's %%I %q, want calq's message id", got.Get("id"))
		}
	})

	t.Run("inbound", func(t *testing.T) {
		parts, err := pdu.EncodeDeliver("+4917012345678", "calq e2e: hello server", time.Now(), pdu.DeliverOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.emu.Plant(r.emu.Devices()[0], parts[0]); err != nil {
			t.Fatal(err)
		}
		in := hooks.await(t, "sms.inbound", func(c hookCall) bool { return c.Path == "/inbound" })
		e := in.event(t)
		msg, _ := e["inbound"].(map[string]any)
		if e["type"] != "sms.inbound" || msg["from"] != "+4917012345678" || msg["text"] != "calq e2e: hello server" {
			t.Errorf("the inbound webhook got %s, want the message from +4917012345678", in.Body)
		}
	})
}

// TestServeSMSHandsOver: calq serve without modems queues what POST
// /sms accepts, in the journal calq sms uses: a calq sms daemon started
// on the same --db sends it.
func TestServeSMSHandsOver(t *testing.T) {
	pdus := newPDULog()
	e, err := emu.Start(t.Context(), emu.Options{Log: pdus})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "calq.db")
	r := &smsRig{pdus: pdus, dir: dir, db: db, key: serveUser(t, dir, db, "ann")}
	calqOut(t, serveEnv(dir), "users", "set", "--db", db, "ann", "--sms")
	r.serve = startServeDB(t, dir, db, "--instances", "1")
	if !r.serve.stderr.await("no calq sms daemon runs: messages stay queued", smsWait) {
		t.Fatalf("calq serve without modems does not say who sends:\n%s", r.serve.stderr)
	}
	id := r.send(t, map[string]any{"to": "+4915112345678", "text": "calq e2e: handed over"})[0]
	if m := r.message(t, id); m.State != "queued" {
		t.Fatalf("message %d is %s before any daemon, want queued", id, m.State)
	}
	daemon := calqCmd(t, "sms", "daemon", "--db", db, "--device", e.Devices()[0], "--send-every", "50ms")
	daemon.Env = append(daemon.Env, serveEnv(dir)...)
	var log syncBuffer
	daemon.Stderr = &log
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { daemon.Process.Kill(); daemon.Wait() }()
	recs := pdus.await(t, 1)
	if sub, err := pdu.Decode(recs[0].PDU, pdu.MO); err != nil || sub.DA != "+4915112345678" || sub.Text != "calq e2e: handed over" {
		t.Errorf("calq sms daemon sent %+v (%v), want serve's message to +4915112345678", sub, err)
	}
}
