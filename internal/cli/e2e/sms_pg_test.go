package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calq/internal/pgtest"
	"calq/internal/tooltest"
	"calq/sms/pdu"
)

// startEmulator starts calq sms emulate with args and returns the device
// path it serves.
func startEmulator(t *testing.T, dir string, args ...string) string {
	t.Helper()
	devs := filepath.Join(dir, "devs.txt")
	cmd := calqCmd(t, append([]string{"sms", "emulate"}, args...)...)
	out, err := os.Create(devs)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitLines(t, devs, 1)
	return lines(t, devs)[0]
}

// startHost starts calq sms daemon as if on a host of its own: in new
// UTS and mount namespaces it is named host, sees the emulator's pty at
// dev (the same path on every "host"), and has a /run/lock of its own
// for the device's lock file.
func startHost(t *testing.T, host, pty, dev, url string) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("calq")
	if err != nil {
		t.Fatal(err)
	}
	script := `hostname "$1" && mount -t tmpfs tmpfs /run/lock && mount --bind "$2" "$3" && shift 3 && exec "$@"`
	cmd := exec.Command("unshare", "--uts", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
		host, pty, dev, bin, "sms", "daemon", "--db", url, "--device", dev, "--send-every", "100ms", "--poll-every", "200ms")
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0", "XDG_STATE_HOME="+t.TempDir())
	var log lockedBuilder
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if t.Failed() {
			t.Logf("daemon on %s:\n%s", host, log.String())
		}
	})
	return cmd
}

// TestSMSSharedTwoHosts: two daemons on two "hosts", each with its own
// emulated modem at the same device path, share one outbox on
// PostgreSQL. 200 messages submitted from a third place are each sent
// exactly once, by both hosts between them, and what the modems received
// reaches the shared inbox under each host's modem name.
func TestSMSSharedTwoHosts(t *testing.T) {
	if os.Geteuid() != 0 {
		tooltest.Unavailable(t, "two hosts on one machine need namespaces: run as root")
	}
	if out, err := exec.Command("unshare", "--uts", "--mount", "true").CombinedOutput(); err != nil {
		tooltest.Unavailable(t, "unshare: %v: %s", err, out)
	}
	srv := pgtest.Start(t)
	tmp := t.TempDir()
	dev := filepath.Join(tmp, "dev", "ttyUSB0")
	if err := os.MkdirAll(filepath.Dir(dev), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dev, nil, 0o644); err != nil { // a mount point for each host's pty
		t.Fatal(err)
	}
	inbox := filepath.Join(tmp, "inbox.txt")
	// One DELIVER PDU per modem: "hello world" from +491701234567 (as in
	// testdata/script/sms_recv.txtar).
	if err := os.WriteFile(inbox, []byte("00040C919471103254760000522082901300400BE8329BFD06DDDF723619\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hosts := []string{"alpha", "beta"}
	logs := map[string]string{}
	for _, h := range hosts {
		dir := filepath.Join(tmp, h)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		logs[h] = filepath.Join(dir, "emu.log")
		pty := startEmulator(t, dir, "--log", logs[h], "--latency", "50ms", "--inbox", inbox)
		startHost(t, h, pty, dev, srv.URL)
	}
	c := pgConn(t, srv.URL)
	waitFor(t, "both daemons to hold their modem", func() bool {
		var n int
		err := c.QueryRow(context.Background(), `SELECT count(*) FROM sms_modem_holds WHERE until > now()`).Scan(&n)
		return err == nil && n == 2
	})

	const n = 200
	var to []string
	for i := range n {
		to = append(to, fmt.Sprintf("+1555%07d", i))
	}
	send := calqCmd(t, append(append([]string{"sms", "send", "--db", srv.URL, "--json"}, to...), "shared outbox")...)
	send.Env = append(send.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "submitter"))
	out, err := send.Output()
	if err != nil {
		t.Fatalf("sms send: %v\n%s", err, out)
	}
	byModem := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var m struct {
			Type  string `json:"message_type"`
			State string `json:"state"`
			Modem string `json:"modem"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("sms send --json: %v: %s", err, sc.Text())
		}
		if m.Type == "sms_result" {
			if m.State != "sent" {
				t.Errorf("a message ended %s, want sent: %s", m.State, sc.Text())
			}
			byModem[m.Modem]++
		}
	}

	// Each recipient's PDU reached exactly one modem, once.
	sent := map[string]int{}
	perHost := map[string]int{}
	for _, h := range hosts {
		for _, l := range lines(t, logs[h]) {
			var e struct{ PDU string }
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatal(err)
			}
			m, err := pdu.Decode(e.PDU, pdu.MO)
			if err != nil {
				t.Fatal(err)
			}
			sent[m.DA]++
			perHost[h]++
		}
	}
	if len(sent) != n {
		t.Errorf("%d recipients got a PDU, want %d", len(sent), n)
	}
	for da, k := range sent {
		if k != 1 {
			t.Errorf("%s got %d PDUs, want 1", da, k)
		}
	}
	for _, h := range hosts {
		if perHost[h] == 0 || byModem[h+"/ttyUSB0"] != perHost[h] {
			t.Errorf("host %s sent %d PDUs and the outbox credits %s/ttyUSB0 with %d; want the same, more than 0 (all: %v)",
				h, perHost[h], h, byModem[h+"/ttyUSB0"], byModem)
		}
	}
	t.Logf("sent by host: %v", perHost)

	// The daemons filed what their modems received in the shared inbox,
	// each under its host's modem name.
	var got map[string]int
	waitFor(t, "the shared inbox to hold a message from each host", func() bool {
		recv := calqCmd(t, "sms", "recv", "--db", srv.URL, "--offline", "--keep", "--json")
		recv.Env = append(recv.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "submitter"))
		out, err := recv.Output()
		if err != nil {
			return false
		}
		got = map[string]int{}
		for l := range strings.Lines(string(out)) {
			var m struct{ Modem, Text string }
			if json.Unmarshal([]byte(l), &m) == nil && m.Text == "hello world" {
				got[m.Modem]++
			}
		}
		return got["alpha/ttyUSB0"] == 1 && got["beta/ttyUSB0"] == 1
	})
}

// waitFor polls cond for up to a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
