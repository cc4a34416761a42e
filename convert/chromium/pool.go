package chromium

import (
	"context"
	"errors"
	"time"
)

// Errors of a conversion; each is wrapped with details (the status
// codes, URLs or messages) by the error a conversion returns.
var (
	ErrTimeout               = errors.New("the page did not finish within its time")
	ErrMemoryLimit           = errors.New("the browser went over its memory limit")
	ErrCrashed               = errors.New("the browser crashed")
	ErrHTTPStatus            = errors.New("invalid HTTP status code from the main page")
	ErrResourceHTTPStatus    = errors.New("invalid HTTP status code from resources")
	ErrConsoleExceptions     = errors.New("console exceptions")
	ErrLoadingFailed         = errors.New("the main page failed to load")
	ErrResourceLoadingFailed = errors.New("resources failed to load")
	ErrInvalidExpression     = errors.New("the expression returned an exception or undefined")
	ErrInvalidSelector       = errors.New("the selector is not valid")
	ErrPageRanges            = errors.New("the page ranges are not valid")
	ErrRefused               = errors.New("the policy refuses this URL")
	ErrClosed                = errors.New("the pool is closed")
)

// Pool is a warm pool of headless Chromium browsers. It starts no
// browser until its first conversion. It is safe for concurrent use.
type Pool struct {
	cfg Config
}

// Stats is a pool's state for health, metrics and debug pages.
type Stats struct {
	Browsers    int   // running browser processes
	Busy        int   // conversions running
	Conversions int64 // finished since the pool started
	Restarts    int64 // browsers restarted (count, memory, hang or crash)
	RSS         int64 // resident memory of all browsers, bytes
	Started     bool  // a browser was started at least once
	LastError   string
	LastErrorAt time.Time
}

// New returns a pool over cfg. No browser starts until a conversion.
func New(cfg Config) (*Pool, error) { return &Pool{cfg: cfg}, nil }

// PDF prints the page of r to a PDF file at out.
func (p *Pool) PDF(ctx context.Context, r Request, o PDF, out string) error {
	return errors.New("chromium: not yet")
}

// Screenshot captures the page of r to an image file at out.
func (p *Pool) Screenshot(ctx context.Context, r Request, o Screenshot, out string) error {
	return errors.New("chromium: not yet")
}

// Stats returns the pool's state.
func (p *Pool) Stats() Stats { return Stats{} }

// Check reports whether the pool can convert: nil before the first
// start, or when its browsers answer.
func (p *Pool) Check(ctx context.Context) error { return nil }

// Close stops every browser and waits for them.
func (p *Pool) Close() error { return nil }
