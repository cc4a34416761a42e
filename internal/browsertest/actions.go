package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Selectors are CSS selectors; a helper that reads or acts on an element
// takes the first match and waits for it to exist, until ctx ends.

// pollInterval is how often the Wait helpers look again.
const pollInterval = 50 * time.Millisecond

// Navigate loads url in the tab, waits for its load event and returns the
// HTTP status of the document.
func Navigate(ctx context.Context, url string) (int, error) {
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	if err != nil {
		return 0, fmt.Errorf("navigating to %s: %w", url, err)
	}
	return int(resp.Status), nil
}

// Fill replaces the value of the input or textarea sel by typing value
// into it, as a user would (key and input events).
func Fill(ctx context.Context, sel, value string) error {
	clear := fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = ""; return true; })()`, quote(sel))
	err := chromedp.Do(ctx,
		chromedp.WaitReady(chromedp.CSS(sel)),
		chromedp.Evaluate[chromedp.Void](clear),
		chromedp.SendKeys(chromedp.CSS(sel), value),
	)
	if err != nil {
		return fmt.Errorf("filling %s: %w", sel, err)
	}
	return nil
}

// SetFiles chooses the files at paths (absolute) in the file input sel,
// as a user would in the file picker.
func SetFiles(ctx context.Context, sel string, paths ...string) error {
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS(sel), paths)); err != nil {
		return fmt.Errorf("setting the files of %s: %w", sel, err)
	}
	return nil
}

// Click clicks the middle of the element sel once it is visible.
func Click(ctx context.Context, sel string) error {
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		return fmt.Errorf("clicking %s: %w", sel, err)
	}
	return nil
}

// ClickNavigate clicks sel (a link, a form's submit button), waits for the
// page it leads to and returns that document's HTTP status.
func ClickNavigate(ctx context.Context, sel string) (int, error) {
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel)))
	if err != nil {
		return 0, fmt.Errorf("clicking %s and waiting for the next page: %w", sel, err)
	}
	return int(resp.Status), nil
}

// WaitVisible waits until the element sel is in the page and visible.
func WaitVisible(ctx context.Context, sel string) error {
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		return fmt.Errorf("waiting for %s to be visible: %w", sel, err)
	}
	return nil
}

// Text returns the text of the element sel as the user sees it
// (innerText).
func Text(ctx context.Context, sel string) (string, error) {
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		return "", fmt.Errorf("reading the text of %s: %w", sel, err)
	}
	return s, nil
}

// Attribute returns the attribute name of the element sel, and whether
// the element has it.
func Attribute(ctx context.Context, sel, name string) (string, bool, error) {
	a, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
	if err != nil {
		return "", false, fmt.Errorf("reading the attribute %s of %s: %w", name, sel, err)
	}
	return a.Value, a.Exists, nil
}

// Eval evaluates the JavaScript expression in the page and decodes its
// value (JSON) into a T. It runs through the DevTools protocol, so the
// page's Content-Security-Policy does not stop it.
func Eval[T any](ctx context.Context, expr string) (T, error) {
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return v, fmt.Errorf("evaluating %s: %w", expr, err)
	}
	return v, nil
}

// WaitText waits until the text (innerText) of the element sel contains
// text.
func WaitText(ctx context.Context, sel, text string) error {
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%s); return !!e && e.innerText.includes(%s); })()`,
		quote(sel), quote(text))
	if err := waitTrue(ctx, expr); err != nil {
		return fmt.Errorf("waiting for %q in %s: %w", text, sel, err)
	}
	return nil
}

// WaitAttribute waits until the element sel has the attribute name and
// returns its value. Pages that work asynchronously say they are done that
// way (the PDF viewer's data-rendered).
func WaitAttribute(ctx context.Context, sel, name string) (string, error) {
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%s); return !!e && e.hasAttribute(%s); })()`,
		quote(sel), quote(name))
	if err := waitTrue(ctx, expr); err != nil {
		return "", fmt.Errorf("waiting for the attribute %s of %s: %w", name, sel, err)
	}
	v, _, err := Attribute(ctx, sel, name)
	return v, err
}

// waitTrue evaluates expr every pollInterval until it is true or ctx ends.
// It polls from Go, not with chromedp.Poll, whose page function is built
// with new Function and so fails on pages whose CSP forbids eval.
func waitTrue(ctx context.Context, expr string) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err != nil && !navigating(err) {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// navigating says whether err is a page going away under an evaluation
// (a reload, a link followed): the next poll reads the new page.
func navigating(err error) bool {
	msg := err.Error()
	for _, m := range []string{"navigated or closed", "Execution context was destroyed", "Cannot find context"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// quote makes s a JavaScript string literal.
func quote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
