package serve

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"calq/convert/chromium"
)

// TestChromiumError: each failure of the pool answers Gotenberg's status
// and sentence, naming what the request asked.
func TestChromiumError(t *testing.T) {
	pdfTask := func(ranges string) *ChromiumTask {
		return &ChromiumTask{PDF: &chromium.PDF{PageRanges: ranges}}
	}
	tests := []struct {
		name   string
		err    error
		task   *ChromiumTask
		status int // 0: not a jobError
		msg    string
	}{
		{name: "expression", err: fmt.Errorf("wait: %w", chromium.ErrInvalidExpression),
			task:   &ChromiumTask{Load: chromium.Load{WaitForExpression: "undefined"}},
			status: 400, msg: "The expression 'undefined' (waitForExpression) returned an exception or undefined"},
		{name: "expression not asked for is the server's", err: fmt.Errorf("window status: %w", chromium.ErrInvalidExpression),
			task: &ChromiumTask{}},
		{name: "wait selector", err: fmt.Errorf("%w", chromium.ErrInvalidSelector),
			task:   &ChromiumTask{Load: chromium.Load{WaitForSelector: "#x["}},
			status: 400, msg: "The selector '#x[' (waitForSelector) returned an exception or undefined"},
		{name: "screenshot selector", err: fmt.Errorf("%w", chromium.ErrInvalidSelector),
			task:   &ChromiumTask{Screenshot: &chromium.Screenshot{Selector: "#does-not-exist"}},
			status: 400, msg: "The selector '#does-not-exist' (selector) matched no element with a visible box"},
		{name: "main page status", err: fmt.Errorf("404: Not Found: %w", chromium.ErrHTTPStatus), task: &ChromiumTask{},
			status: 409, msg: "Invalid HTTP status code from the main page: 404: Not Found"},
		{name: "resources status", err: fmt.Errorf("https://x.test/400 - 400: Bad Request: %w", chromium.ErrResourceHTTPStatus),
			task: &ChromiumTask{}, status: 409, msg: "Invalid HTTP status code from resources:\nhttps://x.test/400 - 400: Bad Request"},
		{name: "console", err: fmt.Errorf("%w: Error: Exception 1\nError: Exception 2", chromium.ErrConsoleExceptions),
			task: &ChromiumTask{}, status: 409, msg: "Chromium console exceptions:\nError: Exception 1\nError: Exception 2"},
		{name: "resources failed", err: fmt.Errorf("resource Stylesheet: net::ERR_FILE_NOT_FOUND: %w", chromium.ErrResourceLoadingFailed),
			task: &ChromiumTask{}, status: 409, msg: "Chromium failed to load resources: resource Stylesheet: net::ERR_FILE_NOT_FOUND"},
		{name: "main page failed", err: fmt.Errorf("net::ERR_CONNECTION_REFUSED: %w", chromium.ErrLoadingFailed),
			task: &ChromiumTask{}, status: 400, msg: "Chromium returned net::ERR_CONNECTION_REFUSED"},
		{name: "page ranges past the end", err: chromium.ErrPageRanges, task: pdfTask("2-3"),
			status: 400, msg: "The page ranges '2-3' (nativePageRanges) exceeds the page count"},
		{name: "page ranges syntax", err: chromium.ErrPageRanges, task: pdfTask("foo"),
			status: 400, msg: "Chromium does not handle the page ranges 'foo' (nativePageRanges) syntax"},
		{name: "policy", err: fmt.Errorf("file:///etc/passwd: %w", chromium.ErrRefused), task: &ChromiumTask{},
			status: 403, msg: "Forbidden"},
		{name: "timeout", err: fmt.Errorf("after 2s: %w", chromium.ErrTimeout), task: &ChromiumTask{},
			status: 503, msg: "Service Unavailable: after 2s: the page did not finish within its time"},
		{name: "other", err: errors.New("cdp: broken pipe"), task: &ChromiumTask{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := chromiumError(context.Background(), tt.err, tt.task)
			var je *jobError
			if !errors.As(err, &je) {
				if tt.status != 0 {
					t.Fatalf("got %v, want a %d", err, tt.status)
				}
				if !errors.Is(err, tt.err) {
					t.Errorf("got %v, want the pool's error as it is", err)
				}
				return
			}
			if tt.status == 0 {
				t.Fatalf("got %d %q, want the pool's error as it is (a 500)", je.status, je.msg)
			}
			if je.status != tt.status || je.msg != tt.msg {
				t.Errorf("got %d %q, want %d %q", je.status, je.msg, tt.status, tt.msg)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("got %v, want it to wrap the pool's error", err)
			}
		})
	}
}

// TestChromiumErrorCancelled: a job cancelled or out of time is said as
// such, whatever the pool's error.
func TestChromiumErrorCancelled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errCancelled)
	err := chromiumError(ctx, fmt.Errorf("x: %w", chromium.ErrLoadingFailed), &ChromiumTask{})
	if !errors.Is(err, errCancelled) {
		t.Errorf("got %v, want errCancelled", err)
	}
}
