package chromium

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
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
	if b.dead != nil || b.retired || !b.alive() || restartAfter > 0 && b.convs >= restartAfter {
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

// failed returns why b was killed, or ErrCrashed when it died unasked.
func (b *browser) failed() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead == nil && !b.alive() && !b.retired {
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

// pingTimeout bounds a browser's answer to a ping; one that does not
// answer in time is hung.
var pingTimeout = 10 * time.Second

// ping asks the browser for its version.
func (b *browser) ping(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(b.ctx, pingTimeout)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	if _, err := chromedp.CallBrowser(pctx, cdpbrowser.GetVersion, cdp.Empty{}); err != nil {
		return fmt.Errorf("the browser does not answer: %w", err)
	}
	return nil
}

// watchEvery is how often a browser's memory is read; pingEvery how often
// it must answer (tests shorten it).
var (
	watchEvery = 200 * time.Millisecond
	pingEvery  = 5 * time.Second
)

// watch kills b when its process tree goes over the memory limit or it
// stops answering, until it stops.
func (b *browser) watch(p *Pool) {
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	lastPing := time.Now()
	for {
		select {
		case <-b.done:
			if b.failed() != nil && !p.isClosed() {
				p.logf("chromium: browser pid %d stopped: %v", b.cmd.Process.Pid, b.failed())
			}
			return
		case <-tick.C:
		}
		if rss := b.rss(); rss > p.cfg.MemoryLimit {
			b.fail(fmt.Errorf("%w: %d MiB, limit %d MiB", ErrMemoryLimit, rss>>20, p.cfg.MemoryLimit>>20))
			b.stop()
			continue
		}
		if time.Since(lastPing) >= pingEvery {
			lastPing = time.Now()
			if err := b.ping(context.Background()); err != nil && b.alive() {
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
	return groupMemory(b.cmd.Process.Pid)
}

// groupMemory sums the proportional set size (Pss) of the processes of
// group pgid: chromium's processes share most of their pages (the
// binary, fonts, shared memory), which a sum of their RSS would count
// once per process, twice what the browser really holds.
func groupMemory(pgid int) int64 {
	var kib int64
	for _, pid := range groupPids(pgid) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "Pss:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				kib += n
				break
			}
		}
	}
	return kib << 10
}

// groupPids returns the processes of group pgid, from /proc/PID/stat
// (its fifth field is the group).
func groupPids(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(st)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // fields from 3 on
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
