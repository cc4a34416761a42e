package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"calq/convert/chromium"
)

// chromiumError is the reply to a failed conversion of the pool, in
// Gotenberg's statuses and sentences (its clients match them): 400 for
// what the request asked that cannot be done (an expression, a
// selector, page ranges, a page that does not load), 409 for a page
// that loaded with what the request said to fail on (status codes,
// console exceptions, resources), 403 for a page the policy refuses,
// 503 for a page that did not finish in time. c is what the request
// asked, which the sentences name.
func chromiumError(ctx context.Context, err error, c *ChromiumTask) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	load := c.Load
	fail := func(status int, format string, args ...any) error {
		return &jobError{status: status, msg: fmt.Sprintf(format, args...), err: err}
	}
	switch {
	case errors.Is(err, chromium.ErrInvalidExpression) && load.WaitForExpression != "":
		return fail(http.StatusBadRequest, "The expression '%s' (waitForExpression) returned an exception or undefined", load.WaitForExpression)
	case errors.Is(err, chromium.ErrInvalidSelector) && load.WaitForSelector != "":
		return fail(http.StatusBadRequest, "The selector '%s' (waitForSelector) returned an exception or undefined", load.WaitForSelector)
	case errors.Is(err, chromium.ErrInvalidSelector) && c.Screenshot != nil && c.Screenshot.Selector != "":
		return fail(http.StatusBadRequest, "The selector '%s' (selector) matched no element with a visible box", c.Screenshot.Selector)
	case errors.Is(err, chromium.ErrHTTPStatus):
		return fail(http.StatusConflict, "Invalid HTTP status code from the main page: %s", details(err, chromium.ErrHTTPStatus))
	case errors.Is(err, chromium.ErrResourceHTTPStatus):
		return fail(http.StatusConflict, "Invalid HTTP status code from resources:\n%s", details(err, chromium.ErrResourceHTTPStatus))
	case errors.Is(err, chromium.ErrConsoleExceptions):
		return fail(http.StatusConflict, "Chromium console exceptions:\n%s", details(err, chromium.ErrConsoleExceptions))
	case errors.Is(err, chromium.ErrResourceLoadingFailed):
		return fail(http.StatusConflict, "Chromium failed to load resources: %s", details(err, chromium.ErrResourceLoadingFailed))
	case errors.Is(err, chromium.ErrLoadingFailed):
		return fail(http.StatusBadRequest, "Chromium returned %s", details(err, chromium.ErrLoadingFailed))
	case errors.Is(err, chromium.ErrPageRanges) && c.PDF != nil:
		return pageRangesError(c.PDF.PageRanges, err)
	case errors.Is(err, chromium.ErrRefused):
		return fail(http.StatusForbidden, "Forbidden")
	case errors.Is(err, chromium.ErrTimeout):
		return fail(http.StatusServiceUnavailable, "Service Unavailable: %s", details(err, nil))
	case errors.Is(err, chromium.ErrMemoryLimit):
		return fail(http.StatusBadRequest, "The page made Chromium go over its memory limit: %s", details(err, nil))
	case errors.Is(err, chromium.ErrCrashed):
		return fail(http.StatusServiceUnavailable, "Service Unavailable: %s", details(err, nil))
	}
	return err
}

// pageRangesError tells page ranges Chromium cannot read from ranges
// past the last page, as Gotenberg does.
func pageRangesError(ranges string, err error) error {
	msg := fmt.Sprintf("The page ranges '%s' (nativePageRanges) exceeds the page count", ranges)
	if strings.Trim(ranges, "0123456789-, ") != "" {
		msg = fmt.Sprintf("Chromium does not handle the page ranges '%s' (nativePageRanges) syntax", ranges)
	}
	return &jobError{status: http.StatusBadRequest, msg: msg, err: err}
}

// details is err's message without the sentinel's own words: what
// follows it in Gotenberg's sentence (the status codes, URLs,
// exceptions).
func details(err, sentinel error) string {
	msg := err.Error()
	if sentinel != nil {
		msg = strings.Replace(msg, ": "+sentinel.Error(), "", 1)
		msg = strings.Replace(msg, sentinel.Error(), "", 1)
	}
	return strings.Trim(msg, ": \n")
}
