package browsertest

import (
	"context"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// DialogWatch records the JavaScript dialogs (alert, confirm, prompt,
// beforeunload) that a tab opens, and dismisses each, so that a page
// never hangs on one. XSS tests assert Count() == 0 after the hostile
// content was shown. Safe for concurrent use.
type DialogWatch struct {
	mu       sync.Mutex
	messages []string
}

// Dialogs starts watching the tab of ctx (a context from Browser.Tab)
// until t ends. Only dialogs opened after the call are seen: call it
// before Navigate.
func Dialogs(t testing.TB, ctx context.Context) *DialogWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	opening := chromedp.Events(ctx, page.JavascriptDialogOpening)
	w := &DialogWatch{}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	// The events come from their own goroutine, so this one may call the
	// browser; the page waits until the dialog is dismissed.
	wg.Go(func() {
		for ev, err := range opening {
			if err != nil {
				return
			}
			w.add(string(ev.Type) + ": " + ev.Message)
			_, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			if err != nil && ctx.Err() == nil {
				t.Errorf("dismissing a JavaScript dialog: %v", err)
			}
		}
	})
	return w
}

func (w *DialogWatch) add(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.messages = append(w.messages, msg)
}

// Count returns how many dialogs opened so far.
func (w *DialogWatch) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.messages)
}

// Messages returns the dialogs opened so far, each as "type: message"
// (e.g. "alert: 1").
func (w *DialogWatch) Messages() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.messages...)
}
