package mail

import (
	"context"
	"errors"
	"fmt"
	"time"

	"calq/internal/exitcode"
)

// interrupted is the reason Finish gives for a mail it held.
const interrupted = "interrupted; the next run mails what this one converted"

// Finish ends a run with its mail of what the run wrote (as Deliver
// takes it). When ctx is done the run was interrupted: Finish holds the
// PDFs, and the next run, which finds them unchanged, mails them.
// Otherwise it delivers them. runErr is the run's own error; the error
// Finish returns joins it with the mail's. A delivery that failed after
// a run without error is a *DeliveryError, a partial failure: every PDF
// was made.
func (d *Delivery) Finish(ctx context.Context, written []string, merged string, runErr error, now time.Time) (Result, error) {
	if ctx.Err() != nil {
		res, err := d.Hold(ctx, written, merged, interrupted)
		return res, errors.Join(runErr, err)
	}
	res, err := d.Deliver(ctx, written, merged, now)
	if err != nil && runErr == nil {
		err = &DeliveryError{err: fmt.Errorf("%w (%w)", err, exitcode.ErrPartial)}
	}
	return res, errors.Join(runErr, err)
}

// DeliveryError is a failed delivery of PDFs that were all made: it
// wraps exitcode.ErrPartial, and its hint says that they are not lost.
type DeliveryError struct{ err error }

func (e *DeliveryError) Error() string { return e.err.Error() }
func (e *DeliveryError) Unwrap() error { return e.err }

// Hint says that the next run sends the PDFs.
func (e *DeliveryError) Hint() string {
	return "the PDFs are written; the next calq convert with the same --mail-to mails them"
}
