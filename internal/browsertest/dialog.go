package browsertest

import (
	"context"
	"iter"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// DialogWatch records the JavaScript dialogs (alert, confirm, prompt,
// beforeunload) that a tab opens, and dismisses each, so that a page
// never hangs on one. XSS tests assert Count() == 0 after the hostile
// content was shown. Safe for concurrent use.
type DialogWatch struct {
	log record
}

// Dialogs starts watching the tab of ctx (a context from Browser.Tab)
// until t ends. Only dialogs opened after the call are seen: call it
// before Navigate.
func Dialogs(t testing.TB, ctx context.Context) *DialogWatch {
	t.Helper()
	w := &DialogWatch{}
	opening := func(ctx context.Context) iter.Seq2[page.EventJavascriptDialogOpening, error] {
		return chromedp.Events(ctx, page.JavascriptDialogOpening)
	}
	// The events come from their own goroutine, so handling one may call
	// the browser; the page waits until the dialog is dismissed.
	watch(t, ctx, opening, func(ctx context.Context, ev page.EventJavascriptDialogOpening) {
		w.log.add(string(ev.Type) + ": " + ev.Message)
		_, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		if err != nil && ctx.Err() == nil {
			t.Errorf("dismissing a JavaScript dialog: %v", err)
		}
	})
	return w
}

// Count returns how many dialogs opened so far.
func (w *DialogWatch) Count() int { return len(w.log.all()) }

// Messages returns the dialogs opened so far, each as "type: message"
// (e.g. "alert: 1").
func (w *DialogWatch) Messages() []string { return w.log.all() }
