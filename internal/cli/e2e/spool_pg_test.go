package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"calq/internal/pgtest"
	"calq/sms/pdu"
)

// runCmd runs cmd and returns its stdout, its stderr and its exit status.
func runCmd(t *testing.T, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), errOut.String(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}

// calqIn is calqCmd with XDG_STATE_HOME at state: a machine of its own.
func calqIn(t *testing.T, state string, args ...string) *exec.Cmd {
	cmd := calqCmd(t, args...)
	cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+state)
	return cmd
}

// statusMessage is what the tests read of a line of calq sms status
// --json: the fields the README documents, decoded as a user's script
// would.
type statusMessage struct {
	ID      *int64    `json:"id"` // null while spooled
	Created time.Time `json:"created"`
	Text    string    `json:"text"`
	State   string    `json:"state"`
}

// statusLines runs calq sms status --json on machine state and returns
// its messages; want is its exit status.
func statusLines(t *testing.T, state, url string, want int, args ...string) []statusMessage {
	t.Helper()
	out, errOut, code := runCmd(t, calqIn(t, state, append([]string{"sms", "status", "--db", url, "--json"}, args...)...))
	if code != want {
		t.Fatalf("sms status: exit %d, want %d\n%s%s", code, want, out, errOut)
	}
	var ms []statusMessage
	for l := range strings.Lines(out) {
		var m statusMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("sms status --json: %v in %q", err, l)
		}
		ms = append(ms, m)
	}
	return ms
}

// TestSMSSendSpools: calq sms send on a shared outbox whose server stays
// down past --timeout (or at once with --no-wait) keeps the message on
// this machine and exits 4, saying where; sms status lists it as spooled;
// a refusal spools nothing. Once the server is back, the next command of
// this machine that reaches it (each forwarder in turn) forwards it with
// its options and time, once; a daemon sends it, once.
func TestSMSSendSpools(t *testing.T) {
	for _, forwarder := range []string{"status", "send", "daemon"} {
		t.Run(forwarder, func(t *testing.T) { testSpool(t, forwarder) })
	}
}

func testSpool(t *testing.T, forwarder string) {
	srv := pgtest.Start(t)
	nodb := strings.Replace(srv.URL, "/postgres?", "/nodb?", 1)
	srv.Stop()
	state := t.TempDir()
	spoolRE := regexp.MustCompile(`(?m)^calq: 1 message spooled in ` + regexp.QuoteMeta(state) + `/calq/sms-[0-9a-f]{12}\.db, for postgres://calq@127\.0\.0\.1:\d+/postgres\?sslmode=disable$`)

	out, errOut, code := runCmd(t, calqIn(t, state, "sms", "send", "--db", srv.URL, "--timeout", "2s", "--priority", "P1",
		"+491701234567", "disk full on db1"))
	if code != 4 || !spoolRE.MatchString(errOut) || !strings.Contains(errOut, "calq: hint: the next calq sms send, sms status") ||
		!regexp.MustCompile(`(?m)^- +\+491701234567 +spooled `).MatchString(out) {
		t.Fatalf("sms send --timeout 2s: exit %d, want 4, the message spooled and where\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCmd(t, calqIn(t, state, "sms", "send", "--db", srv.URL, "--no-wait", "--json", "+491707654321", "db1 down"))
	if code != 4 || !spoolRE.MatchString(errOut) || !strings.Contains(out, `{"message_type":"sms_result","id":null,"to":"+491707654321","state":"spooled"`) {
		t.Fatalf("sms send --no-wait --json: exit %d, want 4, the message spooled\n%s%s", code, out, errOut)
	}
	spooledAt := time.Now()
	ms := statusLines(t, state, srv.URL, 1)
	if len(ms) != 2 || ms[0].State != "spooled" || ms[1].State != "spooled" || ms[0].ID != nil {
		t.Fatalf("sms status with the server down: %+v, want the 2 messages, spooled, no ids", ms)
	}

	srv.Start()
	// A refusal is no outage: nothing is spooled, at once.
	out, errOut, code = runCmd(t, calqIn(t, state, "sms", "send", "--db", nodb, "--timeout", "2s", "+491701111111", "refused"))
	if code != 1 || strings.Contains(errOut, "spooled") || !strings.Contains(errOut, "SQLSTATE 3D000") {
		t.Errorf("sms send to a missing database: exit %d, want 1 and no spool\n%s%s", code, out, errOut)
	}

	dir := t.TempDir()
	emuLog := filepath.Join(dir, "emu.log")
	dev := startEmulator(t, dir, "--log", emuLog, "--latency", "50ms")
	daemonState := t.TempDir()
	switch forwarder {
	case "status":
		out, errOut, code = runCmd(t, calqIn(t, state, "sms", "status", "--db", srv.URL))
	case "send":
		out, errOut, code = runCmd(t, calqIn(t, state, "sms", "send", "--db", srv.URL, "--no-wait", "+491702222222", "db1 back"))
	case "daemon":
		daemonState = state
	}
	daemon := startLogged(t, calqIn(t, daemonState, "sms", "daemon", "--db", srv.URL, "--device", dev, "--send-every", "100ms"))
	if forwarder == "daemon" {
		daemon.await(t, `^calq: forwarded 2 messages spooled in `, 1)
	} else if code != 0 && code != 4 || !strings.Contains(errOut, "calq: forwarded 2 messages spooled in "+state) {
		t.Fatalf("sms %s with the server up: exit %d, want the messages forwarded\n%s%s", forwarder, code, out, errOut)
	}

	c := pgConn(t, srv.URL)
	waitFor(t, "the daemon to send both", func() bool {
		return len(pgStrings(t, c, `SELECT recipient FROM calq.sms_messages WHERE state = 'sent' AND text <> 'db1 back'`)) == 2
	})
	if got := pgStrings(t, c, `SELECT options FROM calq.sms_messages WHERE recipient = '+491701234567'`); len(got) != 1 || !strings.Contains(got[0], `"priority":"P1"`) {
		t.Errorf("the forwarded message's options: %q, want priority P1", got)
	}
	for _, m := range statusLines(t, state, srv.URL, 0) {
		if m.State == "spooled" || m.Text != "db1 back" && !m.Created.Before(spooledAt) {
			t.Errorf("after the forward: %+v, want no spooled message, created when spooled (before %v)", m, spooledAt)
		}
	}
	if ms := statusLines(t, state, srv.URL, 0, "--state", "spooled"); len(ms) != 0 {
		t.Errorf("the spool holds %d messages after the forward, want none", len(ms))
	}

	if sent := sentTo(t, emuLog); sent["+491701234567"] != 1 || sent["+491707654321"] != 1 {
		t.Errorf("the modem got %v, want each spooled message once", sent)
	}
}

// sentTo counts the PDUs an emulated modem's --log holds, by recipient.
func sentTo(t *testing.T, log string) map[string]int {
	t.Helper()
	sent := map[string]int{}
	for _, l := range lines(t, log) {
		var e struct{ PDU string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		m, err := pdu.Decode(e.PDU, pdu.MO)
		if err != nil {
			t.Fatal(err)
		}
		sent[m.DA]++
	}
	return sent
}

// TestSMSDaemonForwardsSpool: a daemon (calq sms daemon, or calq worker
// --kinds sms) running on the machine where calq sms send spooled a
// message during an outage forwards it once the server is back, without
// a restart, and sends it once.
func TestSMSDaemonForwardsSpool(t *testing.T) {
	for name, args := range map[string][]string{
		"daemon": {"sms", "daemon", "--send-every", "100ms"},
		"worker": {"worker", "--kinds", "sms"},
	} {
		t.Run(name, func(t *testing.T) { testDaemonForwards(t, args) })
	}
}

func testDaemonForwards(t *testing.T, args []string) {
	srv := pgtest.Start(t)
	state, dir := t.TempDir(), t.TempDir()
	emuLog := filepath.Join(dir, "emu.log")
	dev := startEmulator(t, dir, "--log", emuLog, "--latency", "50ms")
	daemon := startLogged(t, calqIn(t, state, append(args, "--db", srv.URL, "--device", dev)...))
	c := pgConn(t, srv.URL)
	awaitRow(t, c, `SELECT 1 FROM calq.sms_modem_holds`)
	c.Close(context.Background())

	srv.Stop()
	out, errOut, code := runCmd(t, calqIn(t, state, "sms", "send", "--db", srv.URL, "--no-wait", "+491701234567", "disk full on db1"))
	if code != 4 || !strings.Contains(errOut, "calq: 1 message spooled in "+state) {
		t.Fatalf("sms send --no-wait with the server down: exit %d, want 4, spooled\n%s%s", code, out, errOut)
	}
	srv.Start()
	daemon.await(t, `^calq: forwarded 1 message spooled in `, 1)
	c = pgConn(t, srv.URL)
	waitFor(t, "the daemon to send it", func() bool {
		return len(pgStrings(t, c, `SELECT recipient FROM calq.sms_messages WHERE state = 'sent'`)) == 1
	})
	if sent := sentTo(t, emuLog); len(sent) != 1 || sent["+491701234567"] != 1 {
		t.Errorf("the modem got %v, want the spooled message once", sent)
	}
	if ms := statusLines(t, state, srv.URL, 0, "--state", "spooled"); len(ms) != 0 {
		t.Errorf("the spool holds %d messages after the forward, want none", len(ms))
	}
}

// TestSMSSendSpoolsFailedInsert: a server that answers the connection but
// goes away during the insert (here a trigger fails it as a shutdown
// would, SQLSTATE 57P01) records nothing there: send spools the message
// (exit 4), and the next command forwards it, once.
func TestSMSSendSpoolsFailedInsert(t *testing.T) {
	srv := pgtest.Start(t)
	state := t.TempDir()
	statusLines(t, state, srv.URL, 0) // creates the tables
	pgtest.Exec(t, srv.URL, `CREATE FUNCTION calq.shutdown() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01'; END $$;
		CREATE TRIGGER shutdown BEFORE INSERT ON calq.sms_messages FOR EACH ROW EXECUTE FUNCTION calq.shutdown()`)
	out, errOut, code := runCmd(t, calqIn(t, state, "sms", "send", "--db", srv.URL, "--no-wait", "+491701234567", "disk full on db1"))
	if code != 4 || !strings.Contains(errOut, "SQLSTATE 57P01") || !strings.Contains(errOut, "calq: 1 message spooled in "+state) {
		t.Fatalf("sms send with the insert failing: exit %d, want 4, spooled\n%s%s", code, out, errOut)
	}
	pgtest.Exec(t, srv.URL, `DROP TRIGGER shutdown ON calq.sms_messages`)
	ms := statusLines(t, state, srv.URL, 0)
	if len(ms) != 1 || ms[0].State != "queued" || ms[0].ID == nil || ms[0].Text != "disk full on db1" {
		t.Fatalf("sms status after the forward: %+v, want the message, queued, with an id", ms)
	}
	if ms := statusLines(t, state, srv.URL, 0); len(ms) != 1 {
		t.Errorf("a second sms status lists %d messages, want still 1", len(ms))
	}
}
