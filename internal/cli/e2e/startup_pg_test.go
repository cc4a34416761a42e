package e2e

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/internal/pgtest"
)

// The tests below start calq's long-running commands against a real
// PostgreSQL server that is down when they start, or goes down and comes
// back while they run, and read what they log.

// logged is a command's stderr, line by line as it writes it.
type logged struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{} // closed and replaced at each line
	done  chan struct{} // closed when stderr ends
}

// startLogged starts cmd with its stderr read into a logged; the test's
// cleanup interrupts it.
func startLogged(t *testing.T, cmd *exec.Cmd) *logged {
	t.Helper()
	r, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	l := &logged{more: make(chan struct{}), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(l.done)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			close(l.more)
			l.more = make(chan struct{})
			l.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		<-l.done
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s:\n%s", strings.Join(cmd.Args, " "), l.String())
		}
	})
	return l
}

func (l *logged) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// count counts the lines matching re.
func (l *logged) count(re string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if regexp.MustCompile(re).MatchString(s) {
			n++
		}
	}
	return n
}

// await waits until n lines match re, failing when the command ends first
// or after two minutes.
func (l *logged) await(t *testing.T, re string, n int) {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		l.mu.Lock()
		more := l.more
		l.mu.Unlock()
		if l.count(re) >= n {
			return
		}
		select {
		case <-more:
		case <-l.done:
			if l.count(re) >= n {
				return
			}
			t.Fatalf("the command ended with %d lines matching %q, want %d:\n%s", l.count(re), re, n, l.String())
		case <-timeout:
			t.Fatalf("%d lines matching %q after 2 minutes, want %d:\n%s", l.count(re), re, n, l.String())
		}
	}
}

const (
	lostLine = `database postgres://calq@127\.0\.0\.1:\d+/postgres\?sslmode=disable unreachable, retrying: `
	backLine = `database postgres://calq@127\.0\.0\.1:\d+/postgres\?sslmode=disable back after \d+s$`
)

// outage stops the server for a few seconds, long enough for the loops
// under test to fail several times over (the worker every lease/3 and
// every second, the daemon every --send-every), and waits for l's lost
// line, then for its back line.
func outage(t *testing.T, srv *pgtest.Server, l *logged, n int) {
	t.Helper()
	srv.Stop()
	l.await(t, lostLine, n)
	time.Sleep(3 * time.Second) // many failed operations, one line
	srv.Start()
	l.await(t, backLine, n)
}

// TestWorkerStartsBeforeServer: a worker started while the server is down
// waits for it, logging one line, runs jobs once it is up, and through a
// later outage logs one line when the server is lost and one when it is
// back, however many of its operations fail in between.
func TestWorkerStartsBeforeServer(t *testing.T) {
	srv := pgtest.Start(t)
	srv.Stop()
	worker := calqCmd(t, "worker", "--db", srv.URL, "--kinds", "shell", "--lease", "2s")
	l := startLogged(t, worker)
	l.await(t, "^calq worker: "+lostLine+"connection refused$", 1)
	srv.Start()
	l.await(t, "^calq worker: "+backLine, 1)
	l.await(t, "ready for shell", 1)

	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.txt")
	if err := os.WriteFile(jobs, []byte("echo one\necho two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub, out := submit(t, srv.URL, jobs)
	waitSubmit(t, sub, out, "2 jobs: 2 done, 0 failed")

	outage(t, srv, l, 2)
	sub, out = submit(t, srv.URL, jobs)
	waitSubmit(t, sub, out, "2 jobs: 2 done, 0 failed")
	if lost, back, other := l.count(lostLine), l.count(backLine), l.count("calq worker: database: "); lost != 2 || back != 2 || other != 0 {
		t.Errorf("%d lost, %d back and %d other database lines for two outages, want 2, 2 and 0:\n%s", lost, back, other, l.String())
	}
}

// TestSMSDaemonStartsBeforeServer: the same for calq sms daemon on a
// shared outbox: it waits at start, logs one line per outage and one per
// return instead of a warning per failed read of the outbox, and sends
// once the server is back.
func TestSMSDaemonStartsBeforeServer(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	dev := startEmulator(t, dir)
	srv.Stop()
	daemon := calqCmd(t, "sms", "daemon", "--db", srv.URL, "--device", dev, "--send-every", "100ms", "--poll-every", "200ms")
	daemon.Env = append(daemon.Env, "XDG_STATE_HOME="+t.TempDir())
	l := startLogged(t, daemon)
	l.await(t, "^calq: warning: "+lostLine+"connection refused$", 1)
	srv.Start()
	l.await(t, "^calq: warning: "+backLine, 1)

	outage(t, srv, l, 2)
	send := calqCmd(t, "sms", "send", "--db", srv.URL, "--timeout", "2m", "+491701234567", "after the outage")
	if out, err := send.CombinedOutput(); err != nil || !strings.Contains(string(out), " sent ") {
		t.Errorf("sms send after the outage: %v\n%s", err, out)
	}
	if lost, back, all := l.count(lostLine), l.count(backLine), l.count("."); lost != 2 || back != 2 || all != 4 {
		t.Errorf("%d lost and %d back lines for two outages, %d lines in all; want 2, 2 and 4:\n%s", lost, back, all, l.String())
	}
}

// TestSMSSendWaitsForServer: calq sms send on a shared outbox whose server
// is down waits for it within --timeout and records the message once it
// is back: with no daemon, it stays queued (exit 4), not lost (exit 1).
func TestSMSSendWaitsForServer(t *testing.T) {
	srv := pgtest.Start(t)
	srv.Stop()
	send := calqCmd(t, "sms", "send", "--db", srv.URL, "--timeout", "2m", "+491701234567", "disk full on db1")
	l := startLogged(t, send)
	l.await(t, "^calq: "+lostLine+"connection refused$", 1)
	srv.Start()
	<-l.done
	err := send.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 4 {
		t.Fatalf("sms send: %v, want exit status 4 (queued)\n%s", err, l.String())
	}
	c := pgConn(t, srv.URL)
	if got := pgStrings(t, c, `SELECT text || ': ' || state FROM calq.sms_messages`); len(got) != 1 || got[0] != "disk full on db1: queued" {
		t.Errorf("the outbox holds %q, want the message, queued", got)
	}
	if l.count(backLine) != 1 {
		t.Errorf("no line saying the server is back:\n%s", l.String())
	}
}

// TestStartRefusals: a missing database or an unknown role is no outage:
// the worker and the daemon, which wait for a server that is down, fail
// at once with the server's reason and a hint.
func TestStartRefusals(t *testing.T) {
	srv := pgtest.Start(t)
	for _, tc := range []struct{ name, url, reason, hint string }{
		{"missing database", strings.Replace(srv.URL, "/postgres?", "/nodb?", 1),
			`FATAL: database "nodb" does not exist \(SQLSTATE 3D000\)$`, "create the database"},
		{"unknown role", strings.Replace(srv.URL, "calq@", "nobody@", 1),
			`FATAL: role "nobody" does not exist \(SQLSTATE 28000\)$`, "check the user and password"},
	} {
		for _, args := range [][]string{
			{"worker", "--db", tc.url, "--kinds", "shell"},
			{"sms", "daemon", "--db", tc.url, "--device", "/dev/null"},
		} {
			t.Run(tc.name+"/"+args[0], func(t *testing.T) {
				out, err := calqCmd(t, args...).CombinedOutput()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 1 {
					t.Fatalf("%v, want exit status 1\n%s", err, out)
				}
				if !regexp.MustCompile(`(?m)cannot connect to postgres://\S+: `+tc.reason).Match(out) ||
					!strings.Contains(string(out), "calq: hint: "+tc.hint) || strings.Contains(string(out), "retrying") {
					t.Errorf("output:\n%s\nwant the reason %q and the hint %q, no retries", out, tc.reason, tc.hint)
				}
			})
		}
	}
}

// TestSMSSendWaitsThroughOutage: the server restarts while calq sms send
// waits for a daemon to send its message; both ride it out (one line each
// when it is lost and when it is back) and send reports the message sent.
func TestSMSSendWaitsThroughOutage(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	dev := startEmulator(t, dir, "--latency", "4s")
	daemon := calqCmd(t, "sms", "daemon", "--db", srv.URL, "--device", dev, "--send-every", "100ms")
	daemon.Env = append(daemon.Env, "XDG_STATE_HOME="+t.TempDir())
	dl := startLogged(t, daemon)
	c := pgConn(t, srv.URL)
	awaitRow(t, c, `SELECT 1 FROM calq.sms_modem_holds`) // the daemon holds its modem
	send := calqCmd(t, "sms", "send", "--db", srv.URL, "--timeout", "2m", "+491701234567", "through a restart")
	var out strings.Builder
	send.Stdout = &out
	sl := startLogged(t, send)
	awaitRow(t, c, `SELECT 1 FROM calq.sms_parts WHERE state = 'sending'`) // on its way to the modem
	c.Close(context.Background())
	srv.Stop()
	sl.await(t, "^calq: "+lostLine, 1)
	srv.Start()
	<-sl.done
	if err := send.Wait(); err != nil || !regexp.MustCompile(`(?m)^\d+ +\+491701234567 +sent `).MatchString(out.String()) {
		t.Fatalf("sms send: %v, want the message sent\n%s\n%s", err, out.String(), sl.String())
	}
	if sl.count(lostLine) != 1 || sl.count(backLine) != 1 || dl.count(lostLine) != 1 || dl.count(backLine) != 1 {
		t.Errorf("send logged:\n%s\nthe daemon logged:\n%s\nwant one lost and one back line each", sl.String(), dl.String())
	}
}

// awaitRow polls until query returns a row (its tables may not exist yet).
func awaitRow(t *testing.T, c *pgx.Conn, query string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var one int
		if c.QueryRow(context.Background(), query).Scan(&one) == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no row from %s after a minute", query)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
