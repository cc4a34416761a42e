package chromium

import (
	"calq/internal/procfs"
	"context"
	"errors"
	"fmt"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// take counts one more conversion on b, unless b has failed, stopped,
// been retired, or done restartAfter conversions (0: no limit).
func (b *browser) take(restartAfter int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead != nil || b.retired || !b.alive() || b.ctx.Err() != nil || restartAfter > 0 && b.convs >= restartAfter {
		return false
	}
	b.convs++
	b.active++
	return true
}

func (b *browser) load() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.active
}

// exitWait bounds the wait for a browser whose connection was lost to
// exit, so that its conversions can tell a crash from another failure.
const exitWait = 5 * time.Second

// lost waits, when b's connection is gone, for its process to be reaped,
// at most exitWait. The connection is gone when b's context is done, or
// when a conversion failed cancelled (err) while its own context (ctx)
// was not: chromedp cancels the tabs of a browser whose connection broke
// before it ends the browser's context.
func (b *browser) lost(ctx context.Context, err error) {
	if b.ctx.Err() == nil && (!errors.Is(err, context.Canceled) || ctx.Err() != nil) {
		return
	}
	select {
	case <-b.done:
	case <-time.After(exitWait):
	}
}

// failed returns why b was killed, or ErrCrashed when it died unasked
// (see lost for the time it takes to be reaped).
func (b *browser) failed() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead == nil && !b.retired && !b.alive() {
		return fmt.Errorf("%w%s", ErrCrashed, b.log.said())
	}
	return b.dead
}

// fail records why b is being killed, the first reason only.
func (b *browser) fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead == nil {
		b.dead = err
	}
}

// The watch of a browser: its memory is read every watchEvery, from
// the processes found by a scan of all of /proc every scanEvery (a
// renderer started between two scans is counted from the next; reading
// all of /proc and every process's smaps on each sample cost calq serve
// 160 ms of CPU per conversion under load); it must answer a ping every
// pingEvery within pingTimeout, or it is hung. A pool copies them (tests
// shorten its copies).
const (
	watchEvery  = 500 * time.Millisecond
	scanEvery   = 2 * time.Second
	pingEvery   = 5 * time.Second
	pingTimeout = 10 * time.Second
)

// ping asks the browser for its version.
func (b *browser) ping(ctx context.Context, timeout time.Duration) error {
	pctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	if _, err := chromedp.CallBrowser(pctx, cdpbrowser.GetVersion, cdp.Empty{}); err != nil {
		return fmt.Errorf("the browser does not answer: %w", err)
	}
	return nil
}

// watch kills b when its process tree goes over the memory limit or it
// stops answering, until it stops.
func (b *browser) watch(p *Pool) {
	tick := time.NewTicker(p.watch.every)
	defer tick.Stop()
	lastPing, lastScan := time.Now(), time.Time{}
	for {
		select {
		case <-b.done:
			if b.failed() != nil && !p.isClosed() {
				p.logf("chromium: browser pid %d stopped: %v", b.cmd.Process.Pid, b.failed())
			}
			return
		case <-tick.C:
		}
		if time.Since(lastScan) >= max(p.watch.scan, p.watch.every) {
			lastScan = time.Now()
			b.members = groupPids(b.cmd.Process.Pid)
		}
		rss := pssOf(b.members)
		b.mem.Store(rss)
		if rss > p.cfg.MemoryLimit {
			b.fail(fmt.Errorf("%w: %d MiB, limit %d MiB", ErrMemoryLimit, rss>>20, p.cfg.MemoryLimit>>20))
			b.stop()
			continue
		}
		if time.Since(lastPing) >= p.watch.ping {
			lastPing = time.Now()
			if err := b.ping(context.Background(), p.watch.pingTimeout); err != nil && b.alive() {
				b.fail(fmt.Errorf("%w: %v", ErrCrashed, err))
				b.stop()
			}
		}
	}
}

// rss is the memory of b's process group: the guard, chromium and every
// helper it forked (zygotes, renderers, utilities), which stay in the
// group.
func (b *browser) rss() int64 {
	if !b.alive() {
		return 0
	}
	if m := b.mem.Load(); m > 0 {
		return m // the watch's last sample
	}
	return groupMemory(b.cmd.Process.Pid)
}

// groupMemory sums the proportional set size (Pss) of the processes of
// group pgid: chromium's processes share most of their pages (the
// binary, fonts, shared memory), which a sum of their RSS would count
// once per process, twice what the browser really holds.
func groupMemory(pgid int) int64 { return pssOf(groupPids(pgid)) }

// pssOf sums the Pss of processes pids (those gone count nothing).
func pssOf(pids []int) int64 {
	var n int64
	for _, pid := range pids {
		n += procfs.Pss(pid)
	}
	return n
}

// groupPids returns the live processes of group pgid.
func groupPids(pgid int) []int { return procfs.GroupPids(pgid) }
