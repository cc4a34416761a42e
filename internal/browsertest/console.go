package browsertest

import (
	"context"
	"iter"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// ConsoleWatch records what a tab writes to its console, including
// uncaught exceptions and the browser's own messages (a Content-Security-
// Policy violation, a failed request). Safe for concurrent use.
type ConsoleWatch struct {
	log record
}

// Console starts recording the console of the tab of ctx (a context from
// Browser.Tab) until t ends. Call it before Navigate.
func Console(t testing.TB, ctx context.Context) *ConsoleWatch {
	t.Helper()
	w := &ConsoleWatch{}
	watch(t, ctx, chromedp.Console, func(ctx context.Context, m chromedp.ConsoleMessage) {
		w.log.add(m.String())
	})
	return w
}

// Messages returns the console's lines so far, each as chromedp's
// ConsoleMessage.String() gives it ("error: ...").
func (w *ConsoleWatch) Messages() []string { return w.log.all() }

// watch calls handle with each item of events(ctx), from a goroutine
// that ends when t does.
func watch[E any](t testing.TB, ctx context.Context, events func(context.Context) iter.Seq2[E, error], handle func(context.Context, E)) {
	ctx, cancel := context.WithCancel(ctx)
	seq := events(ctx) // subscribed now, so nothing after the call is lost
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	wg.Go(func() {
		for ev, err := range seq {
			if err != nil {
				return
			}
			handle(ctx, ev)
		}
	})
}

// record is a list of lines safe for concurrent use.
type record struct {
	mu    sync.Mutex
	lines []string
}

func (r *record) add(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
}

func (r *record) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}
