package chromium

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"calq/internal/proc"
)

// browser is one running chromium process and calq's connection to it.
type browser struct {
	cmd    *exec.Cmd
	dir    string          // its --user-data-dir, removed when it stops
	ctx    context.Context // chromedp's context of the browser (its first tab)
	cancel func()          // ends ctx and the connection
	kill   func()          // ends the process (its context)
	done   chan struct{}   // closed once the process is reaped
	log    *tail           // the last lines of its output

	mu      sync.Mutex
	convs   int   // conversions started on it
	active  int   // conversions running on it
	dead    error // why it was killed, once it was (ErrMemoryLimit, ...)
	retired bool  // replaced: stopped when its last conversion ends

	// members are the processes of its group the watch found at its
	// last scan of /proc, mem their memory at its last sample (-1: none
	// yet); only the watch writes them.
	members []int
	mem     atomic.Int64

	spares    chan *spare // the tab prepared for the next conversion
	preparing bool        // a spare is being opened
	opening   sync.Mutex  // held while a tab is opened
}

// flags are the switches every browser gets: headless, with nothing
// that calls home (this network refuses it, and a conversion service must
// not), without the sandbox when running as root (chromium refuses to
// start then), and with cross-site iframes in the page's own process, so
// that the page's request interception sees their requests.
var flags = []string{
	"--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--no-default-browser-check", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--disable-extensions",
	"--disable-default-apps", "--disable-breakpad", "--disable-crash-reporter",
	"--disable-domain-reliability", "--disable-client-side-phishing-detection",
	"--disable-features=site-per-process,IsolateOrigins,Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
	"--disable-site-isolation-trials", "--disable-renderer-backgrounding",
	"--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
	"--metrics-recording-only", "--mute-audio", "--hide-scrollbars",
	"--password-store=basic", "--use-mock-keychain", "--disable-dev-shm-usage",
	"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
}

// args returns the command line of a browser with profile dir.
func (p *Pool) args(dir string, extra []string) []string {
	c := p.cfg
	a := append([]string{}, flags...)
	if os.Geteuid() == 0 {
		a = append(a, "--no-sandbox")
	}
	for _, f := range []struct {
		on   bool
		flag string
	}{
		{c.IgnoreCertificateErrors, "--ignore-certificate-errors"},
		{c.AllowInsecureLocalhost, "--allow-insecure-localhost"},
		{c.DisableWebSecurity, "--disable-web-security"},
		{c.AllowFileAccessFromFiles, "--allow-file-access-from-files"},
		{c.HostResolverRules != "", "--host-resolver-rules=" + c.HostResolverRules},
	} {
		if f.on {
			a = append(a, f.flag)
		}
	}
	a = append(a, extra...) // the gate's, --proxy-server (to c.ProxyServer or through the policy's proxy) among them
	return append(a, "--user-data-dir="+dir, "about:blank")
}

// startBrowser starts a browser and connects to it, within StartTimeout.
func (p *Pool) startBrowser(ctx context.Context) (*browser, error) {
	// A chromium that stays silent (no DevTools address) is given half
	// of StartTimeout, then replaced by a second, given the rest: seen
	// under load here, a start that never listened, where a new one did.
	first := p.cfg.StartTimeout / 2
	b, err := p.startOnce(ctx, first)
	if errors.Is(err, errSilent) && ctx.Err() == nil {
		p.logf("chromium: a browser did not listen within %v; starting another", first)
		b, err = p.startOnce(ctx, p.cfg.StartTimeout-first)
	}
	return b, err
}

// errSilent is a start whose chromium never announced its DevTools
// address.
var errSilent = errors.New("it did not listen")

// startOnce starts one browser, within timeout.
func (p *Pool) startOnce(ctx context.Context, timeout time.Duration) (*browser, error) {
	extra, err := p.gate.browserArgs(ctx)
	if err != nil {
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	dir, err := os.MkdirTemp("", "calq-chromium-")
	if err != nil {
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	pctx, kill := context.WithCancel(context.Background())
	b := &browser{dir: dir, kill: kill, done: make(chan struct{}), log: &tail{}, spares: make(chan *spare, 1)}
	b.cmd = proc.Command(pctx, proc.Options{Dir: dir, Grace: 2 * time.Second}, append([]string{p.path}, p.args(dir, extra)...)...)
	stderr, err := b.cmd.StderrPipe()
	if err == nil {
		err = b.cmd.Start()
	}
	if err != nil {
		kill()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start chromium %s: %w", p.path, err)
	}
	ws := make(chan string, 1)
	go b.read(stderr, ws)
	go b.wait()
	if err := b.connect(ctx, timeout, ws); err != nil {
		b.stop()
		return nil, fmt.Errorf("start chromium %s: %w%s", p.path, err, b.log.said())
	}
	return b, nil
}

// read copies the browser's output to its tail, and sends the DevTools
// address it announces on ws.
func (b *browser) read(r io.Reader, ws chan<- string) {
	const prefix = "DevTools listening on "
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		line := s.Text()
		if u, ok := strings.CutPrefix(line, prefix); ok {
			select {
			case ws <- strings.TrimSpace(u):
			default:
			}
			continue
		}
		b.log.add(line)
	}
	io.Copy(io.Discard, r)
}

// wait reaps the process, waits for the rest of its group to be gone
// (its guard kills the group, and a killed process takes a moment to
// die), then removes its profile: once done is closed, no process of the
// browser runs.
func (b *browser) wait() {
	b.cmd.Wait()
	pgid := b.cmd.Process.Pid
	for end := time.Now().Add(groupExitWait); len(groupPids(pgid)) > 0 && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	os.RemoveAll(b.dir)
	close(b.done)
}

// groupExitWait bounds how long wait waits for a browser's group to die
// after its first process was reaped.
const groupExitWait = 10 * time.Second

// connect waits for the DevTools address and attaches to the browser.
func (b *browser) connect(ctx context.Context, timeout time.Duration, ws <-chan string) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	var u string
	select {
	case u = <-ws:
	case <-b.done:
		return errors.New("it exited before it listened")
	case <-t.C:
		return fmt.Errorf("%w within %v", errSilent, timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
	actx, acancel := remote.NewAllocator(context.Background(), u, remote.NoModifyURL)
	// chromedp logs protocol hiccups (an event for a tab just closed) to
	// the standard logger; they are no error of a conversion.
	quiet := func(string, ...any) {}
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithLogf(quiet), chromedp.WithErrorf(quiet))
	b.ctx, b.cancel = bctx, func() { bcancel(); acancel() }
	res := make(chan error, 1)
	go func() { res <- chromedp.Do(bctx) }()
	select {
	case err := <-res:
		return err
	case <-t.C:
		return fmt.Errorf("it did not answer within %v", timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop ends the connection and the process tree, and waits for it.
func (b *browser) stop() {
	b.dropSpare()
	if b.cancel != nil {
		b.cancel()
	}
	b.kill()
	<-b.done
}

// alive says whether the process still runs.
func (b *browser) alive() bool {
	select {
	case <-b.done:
		return false
	default:
		return true
	}
}

// tail keeps the last lines of a browser's output for error messages.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	if strings.Contains(line, "dbus") || strings.TrimSpace(line) == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > 10 {
		t.lines = t.lines[1:]
	}
}

// said is ": " and the last lines, or "".
func (t *tail) said() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == 0 {
		return ""
	}
	return ": " + strings.Join(t.lines, "; ")
}
