package chromium

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// open makes the tab's target, listens to it and sets it up as the load
// options and the pool's configuration say, before any request leaves.
func (t *tab) open(cfg *Config, media string) error {
	if err := t.listen(); err != nil {
		return fmt.Errorf("open a tab: %w", err)
	}
	t.mu.Lock()
	t.main = cdp.FrameID(chromedp.FromContext(t.ctx).Target.TargetID)
	t.mu.Unlock()
	l := t.r.Load
	// The interception, the lifecycle events and the service workers'
	// bypass were set when the tab was opened (spare.go's prepareTab).
	steps := []func() error{
		func() error { return t.emulate(cfg, media) },
		func() error { return t.cookies() },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return fmt.Errorf("set up the tab: %w", err)
		}
	}
	_ = l
	return nil
}

// emulate sets the media, JavaScript, background and User-Agent.
func (t *tab) emulate(cfg *Config, media string) error {
	l := t.r.Load
	if l.EmulatedMediaType != "" {
		media = l.EmulatedMediaType
	}
	var features []*emulation.MediaFeature
	for _, f := range l.EmulatedMediaFeatures {
		features = append(features, &emulation.MediaFeature{Name: f.Name, Value: f.Value})
	}
	if _, err := call(t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: media, Features: features}); err != nil {
		return err
	}
	if cfg.DisableJavaScript {
		if _, err := call(t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			return err
		}
	}
	if l.OmitBackground {
		if _, err := call(t, transparentBackground, transparent); err != nil {
			return err
		}
	}
	if l.UserAgent != "" {
		if _, err := call(t, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: l.UserAgent}); err != nil {
			return err
		}
	}
	return nil
}

// transparentBackground is Emulation.setDefaultBackgroundColorOverride
// with an alpha of 0, which cdproto's RGBA leaves out (its zero value),
// making it Chromium's default of 1: opaque.
var (
	transparentBackground = cdp.Command[map[string]any, cdp.Empty]{Method: emulation.CommandSetDefaultBackgroundColorOverride}
	transparent           = map[string]any{"color": map[string]any{"r": 0, "g": 0, "b": 0, "a": 0}}
)

// cookies sets the load options' cookies in the tab's browser context.
func (t *tab) cookies() error {
	if len(t.r.Load.Cookies) == 0 {
		return nil
	}
	var cs []*network.CookieParam
	for _, c := range t.r.Load.Cookies {
		cs = append(cs, &network.CookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain,
			Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly, SameSite: network.CookieSameSite(c.SameSite)})
	}
	_, err := call(t, network.SetCookies, network.SetCookiesParams{Cookies: cs})
	return err
}

// load navigates and waits until the page is ready as the load options
// say, then reports the failures they ask for.
func (t *tab) load() error {
	loader, err := t.navigate()
	if err != nil {
		return err
	}
	l := t.r.Load
	waits := []string{"load"}
	if !l.SkipNetworkIdleEvent {
		waits = append(waits, "networkIdle")
	}
	if !l.SkipNetworkAlmostIdleEvent {
		waits = append(waits, "networkAlmostIdle")
	}
	for _, w := range waits {
		if err := t.waitEvent(loader, w); err != nil {
			return err
		}
	}
	if err := t.failures(); err != nil {
		return err
	}
	if err := t.waitReady(); err != nil {
		return err
	}
	return t.failures()
}

// waitReady waits for the delay, window.status, the expression and the
// selector of the load options.
func (t *tab) waitReady() error {
	l := t.r.Load
	if l.WaitDelay > 0 {
		select {
		case <-time.After(l.WaitDelay):
		case <-t.ctx.Done():
			return fmt.Errorf("wait %v: %w", l.WaitDelay, t.ctx.Err())
		}
	}
	if l.WaitWindowStatus != "" {
		if err := t.poll("window.status === "+strconv.Quote(l.WaitWindowStatus), "window.status "+strconv.Quote(l.WaitWindowStatus), nil); err != nil {
			return err
		}
	}
	if l.WaitForExpression != "" {
		if err := t.poll("("+l.WaitForExpression+")", "the expression", ErrInvalidExpression); err != nil {
			return err
		}
	}
	if l.WaitForSelector != "" {
		if err := t.poll("document.querySelector("+strconv.Quote(l.WaitForSelector)+") !== null", "the selector", ErrInvalidSelector); err != nil {
			return err
		}
	}
	return nil
}

// pollEvery is how often a wait condition is evaluated.
const pollEvery = 50 * time.Millisecond

// poll evaluates expr until it is true. An exception, or undefined, fails
// with invalid wrapped (when not nil).
func (t *tab) poll(expr, what string, invalid error) error {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		// A thenable is awaited: its resolved value says (an async
		// expression is a Promise, never true itself).
		res, err := call(t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: ptr(true), AwaitPromise: ptr(true)})
		if err != nil {
			return fmt.Errorf("wait for %s: %w", what, err)
		}
		if invalid != nil {
			if d := res.ExceptionDetails; d != nil {
				return fmt.Errorf("%w: %s", invalid, exceptionText(d))
			}
			if res.Result != nil && res.Result.Type == runtime.RemoteObjectTypeUndefined {
				return fmt.Errorf("%w: %s is undefined", invalid, what)
			}
		}
		if res.Result != nil && string(res.Result.Value) == "true" {
			return nil
		}
		t.mu.Lock()
		stopped := t.stopped
		t.mu.Unlock()
		if stopped != nil {
			return stopped
		}
		select {
		case <-tick.C:
		case <-t.ctx.Done():
			return fmt.Errorf("wait for %s: %w", what, t.ctx.Err())
		}
	}
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

func ptr[T any](v T) *T { return &v }

// prepareTab sets up what every conversion's tab needs, whatever the
// request: every request paused for the gate (no request happens before
// the page is navigated, by then the tab's listener is on), the
// lifecycle events the waits read, and the service workers bypassed.
// Each call costs a round trip to a renderer that may still be starting
// (measured: 130 to 290 ms each on a loaded machine), so a spare does
// this ahead of its conversion.
func prepareTab(ctx context.Context) error {
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}}}); err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
		return err
	}
	_, err := chromedp.Call(ctx, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true})
	return err
}
