package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/internal/pgtest"
	"calq/internal/tooltest"
)

// netns is a network namespace joined to this one by a veth pair: the
// host's end is HostIP, the namespace's NSIP, and Cut and Restore take the
// link down and up, as a pulled cable would.
type netns struct {
	t            *testing.T
	name, veth   string
	HostIP, NSIP string
}

func ipCmd(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func newNetns(t *testing.T) *netns {
	t.Helper()
	if os.Geteuid() != 0 {
		tooltest.Unavailable(t, "network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		tooltest.Unavailable(t, "ip (iproute2): %v", err)
	}
	k := rand.IntN(200) + 20
	n := &netns{t: t, name: fmt.Sprintf("calq-test-%d-%d", os.Getpid(), k), veth: fmt.Sprintf("cq%dh", k),
		HostIP: fmt.Sprintf("10.231.%d.1", k), NSIP: fmt.Sprintf("10.231.%d.2", k)}
	peer := fmt.Sprintf("cq%dn", k)
	ipCmd(t, "netns", "add", n.name)
	t.Cleanup(func() {
		exec.Command("ip", "netns", "del", n.name).Run()
		exec.Command("ip", "link", "del", n.veth).Run()
	})
	ipCmd(t, "link", "add", n.veth, "type", "veth", "peer", "name", peer)
	ipCmd(t, "link", "set", peer, "netns", n.name)
	ipCmd(t, "addr", "add", n.HostIP+"/30", "dev", n.veth)
	ipCmd(t, "link", "set", n.veth, "up")
	ipCmd(t, "netns", "exec", n.name, "ip", "addr", "add", n.NSIP+"/30", "dev", peer)
	ipCmd(t, "netns", "exec", n.name, "ip", "link", "set", peer, "up")
	ipCmd(t, "netns", "exec", n.name, "ip", "link", "set", "lo", "up")
	return n
}

func (n *netns) Cut()     { ipCmd(n.t, "link", "set", n.veth, "down") }
func (n *netns) Restore() { ipCmd(n.t, "link", "set", n.veth, "up") }

// TestWorkerCutOff: a worker in a network namespace of its own is cut off
// from the server by taking its veth link down, for real: no signal, no
// closed socket. Its jobs are taken over by a worker that still reaches
// the server; the cut-off one kills them rather than finishing them, and
// records nothing when its link comes back but that its attempts were the
// outage's, not lost workers' (they do not count towards MaxLost).
func TestWorkerCutOff(t *testing.T) {
	ns := newNetns(t)
	srv := pgtest.StartWith(t, pgtest.Options{Listen: ns.HostIP, Trust: ns.HostIP + "/30"})
	dir := t.TempDir()
	const n = 2
	jobs := crashJobs(t, dir, n, "20")
	bin, err := exec.LookPath("calq")
	if err != nil {
		t.Fatal(err)
	}
	a := exec.Command("ip", "netns", "exec", ns.name, bin, "worker", "--db", srv.URLOn(ns.HostIP), "--quiet",
		"--kinds", "shell", "-j", "2", "--lease", "2s", "--name", "a")
	a.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	var aLog lockedBuilder
	a.Stderr = &aLog
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.Process.Signal(os.Interrupt)
		a.Wait()
		if t.Failed() {
			t.Logf("worker a (cut off) log:\n%s", aLog.String())
		}
	})
	c := pgConn(t, srv.URL)
	workerID(t, c, a.Process.Pid) // registered
	sub, out := submit(t, srv.URL, jobs)
	waitLines(t, filepath.Join(dir, "started"), n)
	ns.Cut()
	// b takes the jobs over once their lease has run out (and b has been
	// connected for a lease); they start again.
	startWorker(t, srv.URL, "--kinds", "shell", "-j", "2", "--lease", "2s", "--name", "b")
	waitLines(t, filepath.Join(dir, "started"), 2*n)
	if got := pgStrings(t, c, `SELECT DISTINCT worker FROM attempts WHERE reason = 'lease expired'`); !slices.Equal(got, []string{"a"}) {
		t.Errorf("requeued attempts belong to %v, want a", got)
	}
	ns.Restore()
	checkTakenOver(t, c, dir, n, sub, out, "b")
	// Back, a finds its jobs taken and says so; it saw the outage and
	// stopped them itself, so their attempts were not lost workers'.
	for deadline := time.Now().Add(time.Minute); strings.Count(aLog.String(), "lease lost") < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("worker a did not report its %d jobs lost:\n%s", n, aLog.String())
		}
	}
	if !strings.Contains(aLog.String(), "outage") {
		t.Errorf("worker a did not report stopping its jobs for the outage:\n%s", aLog.String())
	}
	if got := pgStrings(t, c, `SELECT DISTINCT reason FROM attempts WHERE state = 'cancelled'`); !slices.Equal(got, []string{"outage"}) {
		t.Errorf("a's requeued attempts have reasons %v, want outage (a relabelled them)", got)
	}
}
