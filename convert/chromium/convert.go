package chromium

import (
	"context"
	"fmt"
	"time"
)

// convert runs one conversion: a token, a browser (started if need be),
// a tab in a fresh browser context, the page loaded, then do. The whole
// is bounded by the request's timeout. The tab is closed, and its
// browser context disposed of, after convert returns: the token is
// held until then, so that closings count among the tabs a pool runs.
func (p *Pool) convert(ctx context.Context, r Request, media string, before, do func(*tab) error) (err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.running.Add(1)
	p.mu.Unlock()
	cleanup := func() { p.running.Done() }
	defer func() { go cleanup() }()
	defer func() { p.noteError(err) }()

	timeout := r.Timeout
	if timeout <= 0 {
		timeout = p.cfg.Timeout
	}
	deadline := time.Now().Add(timeout)
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	select {
	case p.tabs <- struct{}{}:
	case <-dctx.Done():
		return p.ended(ctx, deadline, nil, "wait for a free tab")
	}
	cleanup = then(func() { <-p.tabs }, cleanup)

	b, err := p.browserFor(dctx)
	if err != nil {
		if dctx.Err() != nil {
			return p.ended(ctx, deadline, nil, err.Error())
		}
		return err
	}
	cleanup = then(func() { p.release(b) }, cleanup)
	closeTab, err := b.run(dctx, r, p, media, before, do)
	cleanup = then(closeTab, cleanup)
	if err != nil {
		b.lost(dctx, err)
	}
	// The tab's deadline is the same instant as dctx's, on a timer of its
	// own: a tab can end before dctx knows.
	if err != nil && (dctx.Err() != nil || !time.Now().Before(deadline) || b.failed() != nil) {
		return p.ended(ctx, deadline, b, err.Error())
	}
	return err
}

// then returns a func that calls first, then next.
func then(first, next func()) func() {
	return func() { first(); next() }
}

// ended names why a conversion stopped early: its browser's failure, the
// caller's context, or its own deadline.
func (p *Pool) ended(ctx context.Context, deadline time.Time, b *browser, what string) error {
	if b != nil {
		if err := b.failed(); err != nil {
			return fmt.Errorf("%w (%s)", err, what)
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !time.Now().Before(deadline) {
		return fmt.Errorf("%w (%s)", ErrTimeout, what)
	}
	return fmt.Errorf("%s: %w", what, context.Canceled)
}

// run takes a tab in a browser context of its own, runs before, loads
// the page and runs do. It returns the func that closes the tab, which
// disposes of the browser context: its cookies, storage, cache and
// service workers.
func (b *browser) run(ctx context.Context, r Request, p *Pool, media string, before, do func(*tab) error) (func(), error) {
	cctx, closeTab, err := b.tab(ctx)
	if err != nil {
		return closeTab, err
	}
	// The tab's commands end with the conversion's context; ending it
	// does not close the tab, closeTab does.
	tctx, cancel := context.WithCancel(cctx)
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if d, ok := ctx.Deadline(); ok {
		var c2 context.CancelFunc
		tctx, c2 = context.WithDeadline(tctx, d)
		cancel = then(c2, cancel)
	}
	closeTab = then(cancel, closeTab)
	t := newTab(tctx, r, p.gate)
	if err := t.open(&p.cfg, media); err != nil {
		return closeTab, err
	}
	if before != nil {
		if err := before(t); err != nil {
			return closeTab, err
		}
	}
	if err := t.load(); err != nil {
		return closeTab, err
	}
	return closeTab, do(t)
}

// browserFor returns a running browser for one more conversion, the least
// busy slot's, starting or replacing it when it is not running, has
// failed, or has done RestartAfter conversions.
func (p *Pool) browserFor(ctx context.Context) (*browser, error) {
	s := p.pick()
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.isClosed() {
		return nil, ErrClosed
	}
	if b := s.b; b != nil {
		if b.take(p.cfg.RestartAfter) {
			return b, nil
		}
		p.retire(b)
		p.mu.Lock()
		p.stats.Restarts++
		p.mu.Unlock()
	}
	b, err := p.startBrowser(ctx)
	if err != nil {
		s.b = nil
		return nil, err
	}
	p.mu.Lock()
	p.stats.Started = true
	p.mu.Unlock()
	p.logf("chromium: started browser pid %d", b.cmd.Process.Pid)
	s.b = b
	p.running.Add(1)
	go func() { defer p.running.Done(); b.watch(p) }()
	b.take(0)
	return b, nil
}

// pick returns the slot for a conversion: the least busy running
// browser while it has a free tab, else a slot with no browser (started
// then), else the least busy. Filling one browser before starting the
// next keeps memory low where conversions are few.
func (p *Pool) pick() *slot {
	var best, idle *slot
	bestLoad := 0
	for _, s := range p.slots {
		b := s.current()
		if b == nil || !b.alive() || b.failed() != nil {
			idle = cmpOr(idle, s)
			continue
		}
		if l := b.load(); best == nil || l < bestLoad {
			best, bestLoad = s, l
		}
	}
	switch {
	case best != nil && (bestLoad < p.cfg.Tabs || idle == nil):
		return best
	case idle != nil:
		return idle
	}
	return p.slots[0]
}

func cmpOr(a, b *slot) *slot {
	if a != nil {
		return a
	}
	return b
}

// retire stops b once its last conversion ends.
func (p *Pool) retire(b *browser) {
	b.mu.Lock()
	b.retired = true
	idle := b.active == 0
	b.mu.Unlock()
	if idle {
		b.stop()
	}
}

// release ends a conversion on b; the last one on a retired browser
// stops it.
func (p *Pool) release(b *browser) {
	b.mu.Lock()
	b.active--
	last := b.retired && b.active == 0
	b.mu.Unlock()
	if last {
		b.stop()
	}
}
