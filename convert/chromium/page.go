package chromium

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// tab is one conversion's page: a tab in a browser context of its own,
// and what its events told.
type tab struct {
	ctx  context.Context // chromedp's context of the tab
	r    Request
	gate *gate

	mu        sync.Mutex
	changed   chan struct{}               // a lifecycle event or a failure arrived
	lifecycle map[cdp.LoaderID][]string   // lifecycle events of the main frame
	main      cdp.FrameID                 // the main frame (the target's id)
	doc       *network.Response           // the main frame's last document response
	refused   map[network.RequestID]error // requests the gate refused, and why
	mainReqs  map[network.RequestID]bool  // the main frame's document requests
	stopped   error                       // set when the main page failed: ends the waits
	resStatus []string                    // "URL - 404: Not Found" of resources
	resFailed []string                    // "resource Image: net::ERR_..." of resources
	thrown    []string                    // uncaught exceptions
	fail      statusSet                   // the main page's codes to fail on
	resFail   statusSet                   // the resources'
	ignore    []string                    // hosts whose resources' codes are not checked
}

func newTab(ctx context.Context, r Request, g *gate) *tab {
	return &tab{ctx: ctx, r: r, gate: g, changed: make(chan struct{}, 1),
		lifecycle: map[cdp.LoaderID][]string{}, refused: map[network.RequestID]error{},
		mainReqs: map[network.RequestID]bool{},
		fail:     newStatusSet(r.Load.FailOnHTTPStatusCodes), resFail: newStatusSet(r.Load.FailOnResourceHTTPStatusCodes),
		ignore: normalizeDomains(r.Load.IgnoreResourceHTTPStatusDomains)}
}

// call runs one protocol command on the tab.
func call[P, R any](t *tab, cmd cdp.Command[P, R], params P) (R, error) {
	return chromedp.Call(t.ctx, cmd, params)
}

// listen registers the tab's event handler; it runs on chromedp's reading
// goroutine, so it records and returns at once.
func (t *tab) listen() error {
	return chromedp.Listen(t.ctx, func(ev any) {
		switch e := ev.(type) {
		case *fetch.EventRequestPaused:
			go t.intercept(e)
		case *page.EventLifecycleEvent:
			t.onLifecycle(e)
		case *network.EventRequestWillBeSent:
			t.onRequest(e)
		case *network.EventResponseReceived:
			t.onResponse(e)
		case *network.EventLoadingFailed:
			t.onFailed(e)
		case *runtime.EventExceptionThrown:
			t.onThrown(e)
		case *network.EventWebSocketCreated:
			// A WebSocket's handshake is not paused for the gate: the
			// proxy refuses its connection; the gate says why in the log.
			go t.gate.allowURL(e.URL, t.r.Dir)
		}
	})
}

func (t *tab) signal() {
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

func (t *tab) onLifecycle(e *page.EventLifecycleEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.FrameID != t.main {
		return
	}
	t.lifecycle[e.LoaderID] = append(t.lifecycle[e.LoaderID], e.Name)
	t.signal()
}

// intercept lets a request through the gate, with the extra headers that
// apply to it, or fails it.
func (t *tab) intercept(e *fetch.EventRequestPaused) {
	if err := t.gate.allowURL(e.Request.URL, t.r.Dir); err != nil {
		t.mu.Lock()
		t.refused[e.NetworkID] = err
		t.mu.Unlock()
		// An error here means the tab is gone; nothing waits for it then.
		call(t, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	call(t, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID, Headers: t.headers(e)})
}

// refusal returns the gate's error for the request id, if it refused it.
func (t *tab) refusal(id network.RequestID) (error, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.refused[id]
	return s, ok
}

// navigate loads the request's URL and returns its loader.
func (t *tab) navigate() (cdp.LoaderID, error) {
	res, err := call(t, page.Navigate, page.NavigateParams{URL: t.r.URL})
	if err != nil {
		return "", fmt.Errorf("navigate to %s: %w", t.r.URL, err)
	}
	if res.ErrorText != "" {
		if err, ok := t.refusal(network.RequestID(res.LoaderID)); ok {
			return "", err
		}
		if strings.Contains(res.ErrorText, "ERR_BLOCKED_BY_CLIENT") {
			if err := t.gate.allowURL(t.r.URL, t.r.Dir); err != nil {
				return "", err
			}
		}
		return "", fmt.Errorf("%w: %s: %s", ErrLoadingFailed, t.r.URL, res.ErrorText)
	}
	return res.LoaderID, nil
}

// waitEvent waits for the main frame's lifecycle event name of loader.
func (t *tab) waitEvent(loader cdp.LoaderID, name string) error {
	for {
		t.mu.Lock()
		seen, stopped := false, t.stopped
		for _, n := range t.lifecycle[loader] {
			seen = seen || n == name
		}
		t.mu.Unlock()
		if stopped != nil {
			return stopped
		}
		if seen {
			return nil
		}
		select {
		case <-t.changed:
		case <-t.ctx.Done():
			return fmt.Errorf("wait for the page's %s: %w", name, t.ctx.Err())
		}
	}
}
