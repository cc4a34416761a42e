package chromium

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// children returns the pids of this process's children: a pool's
// guards, each the group leader of one browser.
func children() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(e.Name())
			pids = append(pids, pid)
		}
	}
	return pids
}

// newPool returns a pool of its own for t, closed at its end, which must
// leave no process of its browsers running.
func newPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	requireChromium(t)
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		var pids []int
		for _, s := range p.slots {
			if b := s.current(); b != nil {
				pids = append(pids, groupPids(b.cmd.Process.Pid)...)
			}
		}
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		for _, pid := range pids {
			if running(pid) {
				t.Errorf("process %d of the pool runs after Close", pid)
			}
		}
	})
	return p
}

func convertOne(t *testing.T, p *Pool, r Request) error {
	t.Helper()
	if r.URL == "" {
		r.Dir = t.TempDir()
		r.URL = writePage(t, r.Dir, "one.html", "<p>one</p>")
		r.Load = quick
	}
	return p.PDF(t.Context(), r, DefaultPDF(), filepath.Join(t.TempDir(), "out.pdf"))
}

// TestLazyStart: New starts no process; the first conversion starts one
// browser, every process of which is in its guard's process group (the
// zygotes and renderers included), so that the guard's kill reaches them.
func TestLazyStart(t *testing.T) {
	before := len(children())
	p := newPool(t, Config{Browsers: 2, Tabs: 2})
	if n := len(children()); n != before {
		t.Fatalf("New started %d processes, want none", n-before)
	}
	if s := p.Stats(); s.Started || s.Browsers != 0 {
		t.Fatalf("Stats before any conversion: %+v, want nothing started", s)
	}
	if err := convertOne(t, p, Request{}); err != nil {
		t.Fatal(err)
	}
	s := p.Stats()
	if !s.Started || s.Browsers != 1 || s.Conversions != 1 || s.RSS <= 0 {
		t.Errorf("Stats after a conversion: %+v, want 1 browser started, 1 conversion, some memory", s)
	}
	b := p.slots[0].current()
	group := map[int]bool{}
	for _, pid := range groupPids(b.cmd.Process.Pid) {
		group[pid] = true
	}
	entries, _ := os.ReadDir("/proc")
	seen := 0
	for _, e := range entries {
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if !strings.Contains(string(cmd), b.dir) {
			continue
		}
		pid, _ := strconv.Atoi(e.Name())
		seen++
		if !group[pid] && running(pid) {
			t.Errorf("process %d (%.80s) uses the browser's profile but is not in its group", pid, cmd)
		}
	}
	if seen < 3 {
		t.Errorf("found %d processes of the browser, want its browser, zygote and renderer at least", seen)
	}
}

// TestRestartAfter: a browser is replaced after RestartAfter conversions,
// and the replaced one stops.
func TestRestartAfter(t *testing.T) {
	p := newPool(t, Config{Browsers: 1, Tabs: 1, RestartAfter: 2})
	var guards []int
	for i := range 5 {
		if err := convertOne(t, p, Request{}); err != nil {
			t.Fatalf("conversion %d: %v", i+1, err)
		}
		pid := p.slots[0].current().cmd.Process.Pid
		if len(guards) == 0 || guards[len(guards)-1] != pid {
			guards = append(guards, pid)
		}
	}
	if len(guards) != 3 {
		t.Errorf("5 conversions ran in %d browsers, want 3 (restart after 2)", len(guards))
	}
	if got := p.Stats().Restarts; got != 2 {
		t.Errorf("got %d restarts, want 2", got)
	}
	waitGone(t, guards[:len(guards)-1])
}

// TestTimeout: a page that never finishes loading is cut at its timeout
// with ErrTimeout, its tab closed, and the next conversion works.
func TestTimeout(t *testing.T) {
	p := shared.get(t)
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<p>slow</p><img src="/never.png">`)
			return
		}
		select {
		case <-r.Context().Done():
		case <-hang:
		}
	}))
	defer srv.Close()
	defer close(hang)
	for _, name := range []string{"subresource", "main page"} {
		url := srv.URL + "/"
		if name == "main page" {
			url = srv.URL + "/never"
		}
		err := convertOne(t, p, Request{URL: url, Timeout: 2 * time.Second})
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("%s: got %v, want %v", name, err, ErrTimeout)
		}
	}
	if err := convertOne(t, p, Request{}); err != nil {
		t.Errorf("the conversion after the timeouts: %v", err)
	}
	if s := p.Stats(); s.Busy != 0 {
		t.Errorf("Stats after the timeouts: %+v, want none busy", s)
	}
}

// TestContextCancelled: the caller's cancellation ends a conversion with
// the context's error, not ErrTimeout.
func TestContextCancelled(t *testing.T) {
	p := shared.get(t)
	dir := t.TempDir()
	url := writePage(t, dir, "wait.html", "<p>wait</p>")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	err := p.PDF(ctx, Request{URL: url, Dir: dir, Load: Load{WaitForExpression: "false"}}, DefaultPDF(), filepath.Join(t.TempDir(), "o.pdf"))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		t.Errorf("got %v, want the context's error", err)
	}
}

// TestMemoryLimit: a page that allocates memory in a loop is stopped
// with ErrMemoryLimit, and the next conversion works in a new browser.
func TestMemoryLimit(t *testing.T) {
	p := newPool(t, Config{Browsers: 1, Tabs: 2, MemoryLimit: 700 << 20})
	if err := convertOne(t, p, Request{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	url := writePage(t, dir, "eat.html", `<p>eat</p><script>const held = [];
setInterval(() => { for (let i = 0; i < 4; i++) held.push(new Float64Array(4 << 20).fill(Math.random())) }, 20)</script>`)
	err := convertOne(t, p, Request{URL: url, Dir: dir, Load: Load{WaitForExpression: "false", SkipNetworkIdleEvent: true}, Timeout: time.Minute})
	if !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("got %v, want %v", err, ErrMemoryLimit)
	}
	if err := convertOne(t, p, Request{}); err != nil {
		t.Errorf("the conversion after the memory limit: %v", err)
	}
	if got := p.Stats().Restarts; got != 1 {
		t.Errorf("got %d restarts, want 1", got)
	}
}

// TestCrashed: a browser killed during a conversion fails it with
// ErrCrashed; the next conversion starts a new one.
func TestCrashed(t *testing.T) {
	p := newPool(t, Config{Browsers: 1, Tabs: 1})
	if err := convertOne(t, p, Request{}); err != nil {
		t.Fatal(err)
	}
	b := p.slots[0].current()
	dir := t.TempDir()
	url := writePage(t, dir, "wait.html", "<p>wait</p>")
	done := make(chan error, 1)
	go func() {
		done <- p.PDF(context.Background(), Request{URL: url, Dir: dir, Load: Load{WaitForExpression: "false"}, Timeout: time.Minute},
			DefaultPDF(), filepath.Join(dir, "o.pdf"))
	}()
	waitFor(t, "the conversion to start", func() bool { return p.Stats().Busy == 1 })
	syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	if err := <-done; !errors.Is(err, ErrCrashed) {
		t.Errorf("got %v, want %v", err, ErrCrashed)
	}
	if err := convertOne(t, p, Request{}); err != nil {
		t.Errorf("the conversion after the crash: %v", err)
	}
}

// TestHung: a browser that stops answering (SIGSTOP) is killed, its
// conversion fails with ErrCrashed, and the next conversion works.
func TestHung(t *testing.T) {
	pingEvery, pingTimeout = 200*time.Millisecond, time.Second
	t.Cleanup(func() { pingEvery, pingTimeout = 5*time.Second, 10*time.Second })
	p := newPool(t, Config{Browsers: 1, Tabs: 1})
	if err := convertOne(t, p, Request{}); err != nil {
		t.Fatal(err)
	}
	b := p.slots[0].current()
	dir := t.TempDir()
	url := writePage(t, dir, "wait.html", "<p>wait</p>")
	done := make(chan error, 1)
	go func() {
		done <- p.PDF(context.Background(), Request{URL: url, Dir: dir, Load: Load{WaitForExpression: "false"}, Timeout: time.Minute},
			DefaultPDF(), filepath.Join(dir, "o.pdf"))
	}()
	waitFor(t, "the conversion to start", func() bool { return p.Stats().Busy == 1 })
	for _, pid := range groupPids(b.cmd.Process.Pid)[1:] { // all but the guard
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	if err := <-done; !errors.Is(err, ErrCrashed) || !strings.Contains(err.Error(), "answer") {
		t.Errorf("got %v, want %v (does not answer)", err, ErrCrashed)
	}
	if err := convertOne(t, p, Request{}); err != nil {
		t.Errorf("the conversion after the hang: %v", err)
	}
}

// TestIsolation: two conversions of the same origin never see each
// other's cookies or storage.
func TestIsolation(t *testing.T) {
	p := shared.get(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "seen", Value: "yes", MaxAge: 3600})
		fmt.Fprintf(w, `<p>header cookie=[%s]</p><p id="s"></p><script>
document.getElementById("s").textContent = "storage=[" + localStorage.getItem("k") + "] session=[" + sessionStorage.getItem("k") + "] script cookie=[" + document.cookie + "]";
localStorage.setItem("k", "left"); sessionStorage.setItem("k", "left"); document.cookie = "js=left; max-age=3600";
</script>`, r.Header.Get("Cookie"))
	}))
	defer srv.Close()
	for i := range 2 {
		out := filepath.Join(t.TempDir(), "out.pdf")
		if err := p.PDF(t.Context(), Request{URL: srv.URL, Load: quick}, DefaultPDF(), out); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(pdfText(t, out)), " ")
		want := "header cookie=[] storage=[null] session=[null] script cookie=[seen=yes]"
		if text != want {
			t.Errorf("conversion %d: got %q, want %q", i+1, text, want)
		}
	}
}

// TestCalqKilled SIGKILLs a calq-like process converting a page (see
// fakeCalq) and expects every process of its browser to die with it.
func TestCalqKilled(t *testing.T) {
	requireChromium(t)
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	calq := exec.Command(self, "-test.run=^$")
	calq.Env = append(os.Environ(), fakeCalqEnv+"="+dir)
	calq.Stderr = os.Stderr
	if err := calq.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	waitFor(t, "the fake calq's browser", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "pids"))
		if err != nil {
			return false
		}
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			pids = append(pids, pid)
		}
		return true
	})
	if len(pids) < 4 {
		t.Fatalf("the browser has %d processes (%v), want the guard, chromium, a zygote and a renderer at least", len(pids), pids)
	}
	calq.Process.Kill()
	calq.Wait()
	waitGone(t, pids)
}
