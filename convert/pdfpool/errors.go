package pdfpool

import (
	"errors"
	"fmt"
	"strconv"
	"syscall"
	"time"

	"calq/convert/pdf"
	"calq/sched"
)

// ErrMemoryLimit is the error (reached with errors.Is) of an operation
// stopped for its memory.
var ErrMemoryLimit = errors.New("memory limit")

// ErrClosed is the error of an operation on a closed Pool.
var ErrClosed = errors.New("pdfpool: closed")

// TimeoutError is an operation stopped at its time limit. errors.Is
// finds sched.ErrTimeout in it.
type TimeoutError struct{ Limit time.Duration }

func (e *TimeoutError) Error() string {
	return "took longer than the file timeout of " + seconds(e.Limit)
}

// Is makes errors.Is(err, sched.ErrTimeout) true.
func (e *TimeoutError) Is(target error) bool { return target == sched.ErrTimeout }

// seconds writes d in seconds: 60s, 0.5s.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// MemoryError is an operation whose helper grew over the limit: Used is
// what it was seen holding.
type MemoryError struct{ Used, Limit int64 }

func (e *MemoryError) Error() string {
	return fmt.Sprintf("needs more than %d MiB of memory to process (the PDF helper reached %d MiB and was stopped)",
		e.Limit>>20, (e.Used+1<<20-1)>>20)
}

// Is makes errors.Is(err, ErrMemoryLimit) true.
func (e *MemoryError) Is(target error) bool { return target == ErrMemoryLimit }

// CrashError is an operation whose helper died on its own: How it
// ended, and the first line it wrote about it.
type CrashError struct{ How, Said string }

func (e *CrashError) Error() string {
	msg := "the PDF helper died while working on it (" + e.How
	if e.Said != "" {
		msg += ": " + e.Said
	}
	return msg + ")"
}

// wireError is a pdf error as it crosses the pipe: its text, and what
// callers branch on.
type wireError struct {
	Msg           string `json:"msg"`
	Encrypted     bool   `json:"encrypted,omitempty"`
	ImageTooLarge bool   `json:"image_too_large,omitempty"`
	Errno         int    `json:"errno,omitempty"`
	Field         string `json:"field,omitempty"` // a *pdf.FieldError's
	Value         string `json:"value,omitempty"`
	FieldErr      string `json:"field_error,omitempty"`
}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Msg: err.Error(), Encrypted: errors.Is(err, pdf.ErrEncrypted),
		ImageTooLarge: errors.Is(err, pdf.ErrImageTooLarge)}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		w.Errno = int(errno)
	}
	var fe *pdf.FieldError
	if errors.As(err, &fe) {
		w.Field, w.Value, w.FieldErr = fe.Field, fe.Value, fe.Err.Error()
	}
	return w
}

// remoteError is a helper's error: its text, unwrapping to what callers
// branch on.
type remoteError struct {
	msg  string
	errs []error
}

func (e *remoteError) Error() string   { return e.msg }
func (e *remoteError) Unwrap() []error { return e.errs }

func (w *wireError) err() error {
	if w == nil {
		return nil
	}
	e := &remoteError{msg: w.Msg}
	if w.Encrypted {
		e.errs = append(e.errs, pdf.ErrEncrypted)
	}
	if w.ImageTooLarge {
		e.errs = append(e.errs, pdf.ErrImageTooLarge)
	}
	if w.Errno != 0 {
		e.errs = append(e.errs, syscall.Errno(w.Errno))
	}
	if w.Field != "" {
		e.errs = append(e.errs, &pdf.FieldError{Field: w.Field, Value: w.Value, Err: errors.New(w.FieldErr)})
	}
	return e
}
