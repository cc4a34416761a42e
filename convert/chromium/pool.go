package chromium

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Errors of a conversion; each is wrapped with details (the status
// codes, URLs or messages) by the error a conversion returns.
var (
	ErrTimeout               = errors.New("the page did not finish within its time")
	ErrMemoryLimit           = errors.New("the browser went over its memory limit")
	ErrCrashed               = errors.New("the browser crashed")
	ErrHTTPStatus            = errors.New("invalid HTTP status code from the main page")
	ErrResourceHTTPStatus    = errors.New("invalid HTTP status code from resources")
	ErrConsoleExceptions     = errors.New("console exceptions")
	ErrLoadingFailed         = errors.New("the main page failed to load")
	ErrResourceLoadingFailed = errors.New("resources failed to load")
	ErrInvalidExpression     = errors.New("the expression returned an exception or undefined")
	ErrInvalidSelector       = errors.New("the selector is not valid")
	ErrPageRanges            = errors.New("the page ranges are not valid")
	ErrRefused               = errors.New("the policy refuses this URL")
	ErrClosed                = errors.New("the pool is closed")
)

// Pool is a warm pool of headless Chromium browsers. It starts no
// browser until its first conversion. It is safe for concurrent use.
type Pool struct {
	cfg   Config
	path  string
	gate  *gate
	tabs  chan struct{} // one token per conversion running, Browsers × Tabs
	slots []*slot

	watch struct{ every, scan, ping, pingTimeout time.Duration }

	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup // conversions and browsers being stopped
	stats   Stats
}

// slot holds one of the pool's browsers, started on demand.
type slot struct {
	mu sync.Mutex // held while its browser starts or is replaced
	b  *browser
}

// Stats is a pool's state for health, metrics and debug pages.
type Stats struct {
	Browsers    int   // running browser processes
	Busy        int   // conversions running
	Conversions int64 // finished since the pool started
	Restarts    int64 // browsers restarted (count, memory, hang or crash)
	RSS         int64 // resident memory of all browsers, bytes
	Started     bool  // a browser was started at least once
	LastError   string
	LastErrorAt time.Time
}

// New returns a pool over cfg. No browser starts until a conversion; the
// executable is looked up now.
func New(cfg Config) (*Pool, error) {
	path, _, err := Find(cfg.Binary)
	if err != nil {
		return nil, err
	}
	cfg.Browsers = cmp.Or(cfg.Browsers, DefaultBrowsers())
	cfg.Tabs = cmp.Or(cfg.Tabs, DefaultTabs())
	cfg.MemoryLimit = cmp.Or(cfg.MemoryLimit, DefaultMemoryLimit())
	cfg.StartTimeout = cmp.Or(cfg.StartTimeout, 20*time.Second)
	cfg.Timeout = cmp.Or(cfg.Timeout, 30*time.Second)
	if cfg.Browsers < 0 || cfg.Tabs < 0 || cfg.RestartAfter < 0 {
		return nil, fmt.Errorf("chromium pool: browsers %d, tabs %d, restart after %d: want none negative",
			cfg.Browsers, cfg.Tabs, cfg.RestartAfter)
	}
	g, err := newGate(cfg.Policy, egress{proxyServer: cfg.ProxyServer, resolverRules: cfg.HostResolverRules})
	if err != nil {
		return nil, fmt.Errorf("chromium pool: %w", err)
	}
	g.log = cfg.Log
	p := &Pool{cfg: cfg, path: path, gate: g, tabs: make(chan struct{}, cfg.Browsers*cfg.Tabs)}
	p.watch.every, p.watch.scan, p.watch.ping, p.watch.pingTimeout = watchEvery, scanEvery, pingEvery, pingTimeout
	for range cfg.Browsers {
		p.slots = append(p.slots, &slot{})
	}
	return p, nil
}

// PDF prints the page of r to a PDF file at out.
func (p *Pool) PDF(ctx context.Context, r Request, o PDF, out string) error {
	if err := o.check(); err != nil {
		return err
	}
	return p.convert(ctx, r, "print", nil, func(t *tab) error { return t.printPDF(o, out) })
}

// Screenshot captures the page of r to an image file at out.
func (p *Pool) Screenshot(ctx context.Context, r Request, o Screenshot, out string) error {
	if err := o.check(); err != nil {
		return err
	}
	return p.convert(ctx, r, "screen", func(t *tab) error { return t.viewport(o) },
		func(t *tab) error { return t.screenshot(o, out) })
}

// Stats returns the pool's state.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	s := p.stats
	p.mu.Unlock()
	s.Busy = len(p.tabs)
	for _, sl := range p.slots {
		if b := sl.current(); b != nil && b.alive() {
			s.Browsers++
			s.RSS += b.rss()
		}
	}
	return s
}

// Check reports whether the pool can convert: nil before the first
// start, or when its browsers answer.
func (p *Pool) Check(ctx context.Context) error {
	if p.isClosed() {
		return ErrClosed
	}
	for i, sl := range p.slots {
		if b := sl.current(); b != nil {
			if err := b.ping(ctx, p.watch.pingTimeout); err != nil {
				return fmt.Errorf("chromium browser %d: %w", i+1, err)
			}
		}
	}
	return nil
}

// Close stops every browser and waits for them; conversions running fail
// with ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	for _, sl := range p.slots {
		sl.mu.Lock()
		if b := sl.b; b != nil {
			b.fail(ErrClosed)
			b.stop()
		}
		sl.mu.Unlock()
	}
	p.running.Wait()
	return p.gate.close()
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

func (s *slot) current() *browser {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b
}

// logf sends a line to Config.Log.
func (p *Pool) logf(format string, args ...any) {
	if p.cfg.Log != nil {
		p.cfg.Log(fmt.Sprintf(format, args...))
	}
}

// noteError records a conversion's error for Stats.
func (p *Pool) noteError(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Conversions++
	if err != nil {
		p.stats.LastError, p.stats.LastErrorAt = err.Error(), time.Now()
	}
}
