package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// signInRSSBound is what calq serve's own memory (VmHWM) stays under
// through 128 sign-ins at once: the README's bound, the process at rest
// and --max-password-checks (4) argon2id hashes of 19 MiB each, with the
// garbage collector's room. signInRSSAfter is what the burst may leave
// above the memory at rest once it is given back. Under -race the
// detector's shadow memory follows every allocation, and is not given
// back, hence the second figures.
const (
	signInRSSBound     = 256 << 20
	signInRSSAfter     = 48 << 20
	signInRSSBoundRace = 448 << 20
	signInRSSAfterRace = 192 << 20
)

// TestServeSignInBurst: 128 sign-ins at once, on the real calq serve.
// From one address with wrong passwords for one user, exactly the
// throttle's four free attempts are checked and the rest are refused
// with 429 and Retry-After. From 128 addresses for 128 names, no more
// than --max-password-checks hashes run at once, the rest are refused
// with 429 and Retry-After, calq serve's peak memory stays under its
// bound, and the memory is given back after the burst.
func TestServeSignInBurst(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "calq.db")
	pw := filepath.Join(dir, "ann.pw")
	os.WriteFile(pw, []byte("ann-password-22\n"), 0o600)
	calqOut(t, serveEnv(dir), "users", "add", "--db", db, "--password-file", pw, "ann")
	key := serveUser(t, dir, db, "root")
	s := startServe(t, dir)
	pid := s.cmd.Process.Pid
	rest := mustProcStatus(t, pid, "VmRSS")
	t.Logf("calq serve at rest: RSS %d MiB, peak %d MiB", rest>>20, mustProcStatus(t, pid, "VmHWM")>>20)

	// One address, one user, 128 wrong passwords at once.
	statuses := signInBurst(t, s.URL, 128, func(int) (string, string) { return "127.0.0.1", "ann" })
	t.Logf("one address, one user: %v", statuses)
	if statuses[401] != 4 || statuses[429] != 124 {
		t.Errorf("128 wrong passwords from one address: %v, want 4 checked (401) and 124 refused (429)", statuses)
	}
	if got := metric(t, s.URL, key, "calq_serve_password_hashes_total"); got != 4 {
		t.Errorf("password hashes after the first burst: %v, want 4", got)
	}

	// 128 addresses, 128 names.
	before := metric(t, s.URL, key, "calq_serve_password_hashes_total")
	statuses = signInBurst(t, s.URL, 128, func(i int) (string, string) {
		return fmt.Sprintf("127.0.1.%d", i+1), fmt.Sprintf("guest-%d", i)
	})
	peak := mustProcStatus(t, pid, "VmHWM")
	t.Logf("128 addresses: %v; calq serve's peak RSS %d MiB", statuses, peak>>20)
	hashes := metric(t, s.URL, key, "calq_serve_password_hashes_total") - before
	if statuses[401]+statuses[429] != 128 || float64(statuses[401]) != hashes {
		t.Errorf("128 sign-ins from 128 addresses: %v and %v hashes, want each checked (401, one hash) or refused (429)", statuses, hashes)
	}
	if most := metric(t, s.URL, key, "calq_serve_password_hashes_most"); most < 1 || most > 4 {
		t.Errorf("most password hashes at once: %v, want 1 to 4 (--max-password-checks)", most)
	}
	bound, slack := int64(signInRSSBound), int64(signInRSSAfter)
	if raceEnabled {
		bound, slack = signInRSSBoundRace, signInRSSAfterRace
	}
	if peak > bound {
		t.Errorf("calq serve's peak RSS %d MiB, want under %d MiB", peak>>20, bound>>20)
	}
	// The memory of the hashes is given back once they are over.
	waitMetric(t, s.URL, key, "calq_serve_password_hashes_unreleased", 0)
	after := mustProcStatus(t, pid, "VmRSS")
	t.Logf("after the burst: RSS %d MiB", after>>20)
	if after > rest+slack {
		t.Errorf("calq serve's RSS after the burst %d MiB, want under %d MiB (at rest and %d MiB)", after>>20, (rest+slack)>>20, slack>>20)
	}
}

// signInBurst posts n sign-ins at once, the ith from the loopback
// address and as the user from(i) gives, and counts their statuses. A
// 429 without Retry-After counts as 0.
func signInBurst(t *testing.T, base string, n int, from func(int) (string, string)) map[int]int {
	t.Helper()
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		addr, name := from(i)
		c := loopbackClient(addr)
		wg.Go(func() {
			<-start
			resp, err := c.PostForm(base+"/login", url.Values{"user": {name}, "password": {"wrong-password-1"}})
			status := 0
			if err == nil {
				resp.Body.Close()
				status = resp.StatusCode
				if status == 429 && resp.Header.Get("Retry-After") == "" {
					status = 0
				}
			} else {
				t.Errorf("sign-in %d: %v", i, err)
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return statuses
}

// loopbackClient is an HTTP client whose connections come from addr, a
// loopback address (Linux answers every 127.0.0.0/8 address on lo).
func loopbackClient(addr string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}}
	return &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, a string) (net.Conn, error) { return d.DialContext(ctx, network, a) }},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// metric reads one unlabelled figure of GET /prometheus/metrics.
func metric(t *testing.T, base, key, name string) float64 {
	t.Helper()
	status, body, _ := request(t, http.MethodGet, base+"/prometheus/metrics", key, nil, "")
	if status != 200 {
		t.Fatalf("GET /prometheus/metrics: %d %s", status, body)
	}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s %q: %v", name, v, err)
			}
			return f
		}
	}
	t.Fatalf("no %s in GET /prometheus/metrics", name)
	return 0
}

// waitMetric polls a figure until it is want, for a minute.
func waitMetric(t *testing.T, base, key, name string, want float64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := metric(t, base, key, name)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is %v after a minute, want %v", name, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// mustProcStatus is procStatus of a process that must be alive: the
// test fails when its /proc/PID/status has no such field.
func mustProcStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	v := procStatus(pid, field)
	if v == 0 {
		t.Fatalf("no %s in /proc/%d/status", field, pid)
	}
	return v
}
