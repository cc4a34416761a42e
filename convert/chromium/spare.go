package chromium

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
)

// A spare is a tab opened in advance, in a browser context of its own,
// for the next conversion on its browser: making a browser context, a
// target (a renderer process) and attaching to it is most of a
// conversion's time on a warm browser (measured: 60%, see the package
// documentation), and none of it depends on the request. A spare is used
// once, by one conversion, so nothing crosses from one to the next.
type spare struct {
	ctx   context.Context // chromedp's context of the tab
	close func()          // closes the tab and disposes of its context
	err   error
}

// tab returns a tab for a conversion: the spare if one is ready, else a
// new one; either way it starts preparing the next spare.
func (b *browser) tab(ctx context.Context) (context.Context, func(), error) {
	var s *spare
	select {
	case s = <-b.spares:
	default:
	}
	if s == nil || s.err != nil {
		if s != nil {
			s.close()
		}
		s = b.open(ctx)
	}
	b.prepare()
	return s.ctx, s.close, s.err
}

// prepare opens a spare in the background, unless one is ready or on
// its way.
func (b *browser) prepare() {
	b.mu.Lock()
	if b.preparing || len(b.spares) > 0 || b.dead != nil || b.retired {
		b.mu.Unlock()
		return
	}
	b.preparing = true
	b.mu.Unlock()
	go func() {
		s := b.open(context.Background())
		b.mu.Lock()
		b.preparing = false
		b.mu.Unlock()
		select {
		case b.spares <- s:
		default:
			s.close()
		}
	}()
}

// open makes a browser context and a tab in it, and attaches to it; ctx
// bounds the wait, not the tab's life.
func (b *browser) open(ctx context.Context) *spare {
	cctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	s := &spare{ctx: cctx, close: cancel}
	done := make(chan error, 1)
	go func() {
		// One at a time: two tabs opened at once can be attached crossed
		// (measured: a conversion's navigation then never returns).
		b.opening.Lock()
		err := chromedp.Do(cctx)
		b.opening.Unlock()
		if err == nil {
			// chromedp enables the DOM and CSS domains, which make Chromium
			// track every node and style sheet; no conversion needs them.
			_, err = chromedp.Call(cctx, css.Disable, cdp.Empty{})
		}
		if err == nil {
			_, err = chromedp.Call(cctx, dom.Disable, cdp.Empty{})
		}
		if err == nil {
			err = prepareTab(cctx)
		}
		done <- err
	}()
	select {
	case s.err = <-done:
	case <-ctx.Done():
		s.err = ctx.Err()
	}
	if s.err != nil {
		s.err = fmt.Errorf("open a tab: %w", s.err)
	}
	return s
}

// dropSpare closes the spare, if any, of a browser that stops.
func (b *browser) dropSpare() {
	select {
	case s := <-b.spares:
		s.close()
	default:
	}
}
