package pdfpool

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Options configure a Pool. Zero values mean the defaults.
type Options struct {
	MemoryLimit int64 // stop a helper above this resident memory, bytes (0 → DefaultMemoryLimit)
	Helpers     int   // helpers working at once, and kept warm between operations (0 → the number of CPUs)
}

// DefaultMemoryLimit is a helper's memory limit when Options.MemoryLimit
// is 0: ten times what pdfcpu needed for the 10,000 pages calq accepts
// by default (pdf.DefaultMaxPages; about 70 MiB measured), and twice the
// streams it may inflate (pdf.DefaultMaxInflated).
const DefaultMemoryLimit = 1 << 30

// keepRSS: a helper that holds more after an operation is not kept,
// rather than keep what a big operation left (an idle helper holds about
// 25 MiB, most of it calq's executable).
const keepRSS = 128 << 20

// Pool runs pdf's operations in helper processes; see the package doc.
type Pool struct {
	opts  Options
	slots chan struct{} // one per helper at work

	mu     sync.Mutex
	idle   []*helper
	closed bool
	stats  Stats
}

// Stats say what a Pool did.
type Stats struct {
	Started    int64 // helpers started
	Operations int64
	Stopped    int64 // operations stopped: cancelled, over their time or memory
	Crashed    int64 // operations whose helper died on its own
	PeakRSS    int64 // the most resident memory a helper reached in an operation, bytes
}

// New returns a Pool whose helpers start as operations need them.
func New(o Options) *Pool {
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	if o.Helpers <= 0 {
		o.Helpers = runtime.NumCPU()
	}
	return &Pool{opts: o, slots: make(chan struct{}, o.Helpers)}
}

// busy is the number of helpers at work.
func (p *Pool) busy() int { return len(p.slots) }

// MemoryLimit is the limit a helper is held to.
func (p *Pool) MemoryLimit() int64 { return p.opts.MemoryLimit }

// Stats returns what the pool did so far.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Close ends the idle helpers, and the others as their operations end;
// operations after Close fail with ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, h := range idle {
		h.kill()
	}
	return nil
}

// run does req on a helper, waiting for one to be free (ctx bounds the
// wait); limit, when not 0, bounds the operation's own time.
func (p *Pool) run(ctx context.Context, limit time.Duration, req request) (reply, error) {
	if !helpersHere {
		return do(req), nil
	}
	if ctx.Err() != nil { // not a warm helper's start, only to kill it
		return reply{}, context.Cause(ctx)
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return reply{}, context.Cause(ctx)
	}
	defer func() { <-p.slots }()
	h, err := p.get()
	if err != nil {
		return reply{}, err
	}
	req.Memory = p.opts.MemoryLimit
	rep, err := h.call(ctx, limit, req, p.opts.MemoryLimit)
	p.put(h, err)
	return rep, err
}

// get returns an idle helper, or starts one.
func (p *Pool) get() (*helper, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	for len(p.idle) > 0 {
		h := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if h.alive() {
			p.mu.Unlock()
			return h, nil
		}
		h.kill() // reaps it
	}
	p.mu.Unlock()
	h, err := startHelper()
	if err == nil {
		p.mu.Lock()
		p.stats.Started++
		p.mu.Unlock()
	}
	return h, err
}

// put takes h back after an operation that ended with err: kept warm
// when it is sound and small, else killed.
func (p *Pool) put(h *helper, err error) {
	peak := peakRSS(h.p.Pid)
	p.mu.Lock()
	p.stats.Operations++
	p.stats.PeakRSS = max(p.stats.PeakRSS, peak)
	if _, crashed := err.(*CrashError); crashed {
		p.stats.Crashed++
	} else if err != nil {
		p.stats.Stopped++
	}
	keep := err == nil && !p.closed && len(p.idle) < p.opts.Helpers && rss(h.p.Pid) <= keepRSS
	if keep {
		p.idle = append(p.idle, h)
	}
	p.mu.Unlock()
	if !keep {
		h.kill()
	}
}
