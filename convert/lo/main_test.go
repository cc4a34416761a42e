package lo

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"calq/internal/proc"
	"calq/internal/tooltest"
)

// childEnv makes the test binary a stand-in for calq (see childPool); the
// value is the pool's state directory.
const childEnv = "LO_TEST_CHILD_POOL"

func TestMain(m *testing.M) {
	proc.MaybeRunGuard()
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(childPool(dir))
	}
	if mib := os.Getenv(eatEnv); mib != "" {
		os.Exit(eatMemory(mib))
	}
	// Under -race every exit with status 0 sleeps 1 s to let reports
	// drain; each guard, one per soffice client, would pay it.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	// A first start under -race while the suite compiles and other
	// packages start their own LibreOffice once took over 60 s
	// (TestContextEndsPool: "start LibreOffice lo-1: context deadline
	// exceeded"); a test is about what a start does, not how fast.
	defaultStartTimeout = 3 * time.Minute
	code := m.Run()
	sharedPool.close()
	os.Exit(code)
}

// eatEnv makes the test binary a process that grows, for the fake
// instance of TestMemoryLimitDuringConversion; the value is how many MiB.
const eatEnv = "LO_TEST_EAT_MIB"

// eatMemory holds mib MiB (at most 512, so that a broken memory limit
// cannot hurt a shared machine), every page touched, for ten minutes.
func eatMemory(mib string) int {
	n, err := strconv.Atoi(mib)
	if err != nil || n > 512 {
		fmt.Fprintf(os.Stderr, "%s=%q: want at most 512\n", eatEnv, mib)
		return 2
	}
	var held [][]byte
	for range n / 16 {
		b := make([]byte, 16<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		held = append(held, b)
	}
	time.Sleep(10 * time.Minute)
	runtime.KeepAlive(held)
	return 0
}

// childNoUNOEnv makes childPool hand documents over by client soffice.
const childNoUNOEnv = "LO_TEST_CHILD_NO_UNO"

// childPool starts a one-instance pool in dir, starts converting a
// document that hangs LibreOffice, writes dir/ready once the client is
// handing it over, and waits for SIGINT, which stops the pool by New's
// context, as Ctrl-C does in calq. It exits 0 when the pool closed
// cleanly; a SIGKILL ends it anywhere.
func childPool(dir string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p, err := New(ctx, Options{Instances: 1, StateDir: dir, noUNO: os.Getenv(childNoUNOEnv) != ""})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	done := make(chan error, 1)
	go func() {
		done <- p.Instances()[0].Convert(context.Background(), hangingDoc(), filepath.Join(dir, "out.pdf"), ConvertOptions{})
	}()
	for !handing(p.Instances()[0]) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	<-ctx.Done()
	err = <-done
	if cerr := p.Close(); cerr != nil {
		fmt.Fprintln(os.Stderr, cerr)
		return 2
	}
	if !strings.Contains(fmt.Sprint(err), ReasonClosed) {
		fmt.Fprintln(os.Stderr, "conversion after SIGINT:", err)
		return 3
	}
	return 0
}

// shared is a two-instance pool for the tests that need no pool of
// their own, started on first use and closed by TestMain.
type shared struct {
	once sync.Once
	p    *Pool
	dir  string
	err  error
}

var sharedPool shared

func (s *shared) get(t *testing.T) *Pool {
	t.Helper()
	tooltest.Require(t, "soffice")
	s.once.Do(func() {
		s.dir, s.err = os.MkdirTemp("", "calq-lo-test-")
		if s.err == nil {
			s.p, s.err = New(context.Background(), Options{Instances: 2, StateDir: s.dir})
		}
	})
	if s.err != nil {
		t.Fatalf("start the shared pool: %v", s.err)
	}
	return s.p
}

func (s *shared) close() {
	if s.p != nil {
		s.p.Close()
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// testdata returns the path of a file of the repository's test corpus.
func testdata(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "testdata", "convert", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("test corpus: %v", err)
	}
	return p
}

// hangingDoc is 33 bytes of HTML that keep LibreOffice 7.4 busy for about
// a minute (a 48346-column layout).
func hangingDoc() string {
	return filepath.Join("..", "..", "testdata", "convert", "ofz8255-1.html")
}

// poolProcs returns the pids of processes started with the profile of
// any instance under dir (guards, soffice, oosplash, soffice.bin,
// clients), and of their UNO helpers.
func poolProcs(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cmd := string(b)
		ours := strings.Contains(cmd, "-env:UserInstallation=file://"+dir+"/") ||
			strings.Contains(cmd, dir+"/") && strings.Contains(cmd, "unohelper.py")
		if err == nil && ours && !zombie(e.Name()) {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			pids = append(pids, pid)
		}
	}
	return pids
}

func zombie(pid string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true
	}
	s := string(b)
	return strings.HasPrefix(s[strings.LastIndexByte(s, ')')+1:], " Z")
}

// clients returns the pids of i's conversion clients that are running.
func clients(i *Instance) []int {
	var pids []int
	for _, pid := range marked(profileArg(i.l.profileURL())) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(b), "--convert-to") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// handing says whether i is converting a document: a client soffice
// runs, or the UNO helper has a request.
func handing(i *Instance) bool {
	return i.handing.Load() || len(clients(i)) > 0
}

// waitFor polls cond every 10 ms for up to a minute: processes die and
// start asynchronously. It bounds a wait; it asserts nothing about time.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// checkPDF checks that path is a PDF of at least minPages pages and
// returns its bytes.
func checkPDF(t testing.TB, path string, minPages int) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read output: %v", err)
	}
	if !strings.HasPrefix(string(b), "%PDF-") || len(b) < 1000 {
		t.Fatalf("%s: %d bytes starting %q, want a PDF", path, len(b), b[:min(len(b), 8)])
	}
	if n := pages(b); n < minPages {
		t.Errorf("%s: %d pages, want at least %d", path, n, minPages)
	}
	return b
}

var pageRE = regexp.MustCompile(`/Type\s*/Page[^s]`)

// pages counts page objects: LibreOffice writes no object streams.
func pages(pdf []byte) int { return len(pageRE.FindAll(pdf, -1)) }

func killed(pid int) bool { return syscall.Kill(pid, syscall.SIGKILL) == nil }
