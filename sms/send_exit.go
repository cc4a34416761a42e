package sms

import (
	"errors"
	"fmt"
	"slices"

	"calq/internal/exitcode"
	"calq/sched/journal"
)

// Exit statuses of calq sms send, for scripts. Send's error says which
// through ExitCode.
const (
	ExitSent    = 0 // every message accepted by the network (message references known)
	ExitFailure = 1 // every message failed, or calq could not run
	ExitUsage   = 2 // bad arguments
	ExitPartial = 3 // some recipients failed, the others were accepted
	ExitQueued  = 4 // some messages are left queued for a retry (timeout, no modem, --at)
	ExitUnknown = 5 // the outcome of some message is unknown: it may have been sent
)

// ExitError carries the exit status a send's outcome asks for. It wraps
// exitcode.ErrPartial for status 3.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode returns the exit status err asks for: ExitError's code, 0 for
// nil, else 1.
func ExitCode(err error) int {
	var xe *ExitError
	switch {
	case err == nil:
		return ExitSent
	case errors.As(err, &xe):
		return xe.Code
	}
	return ExitFailure
}

// ErrQueued and ErrUnknown are wrapped by Send's error for exit statuses 4 and 5.
var (
	ErrQueued  = errors.New("left queued")
	ErrUnknown = errors.New("outcome unknown")
)

// outcome decides the exit status from the states of the messages, this
// run's and the earlier ones it settled: any unknown
// gives 5, else any still queued 4, else failures 3 (some sent) or 1 (none
// sent), else 0.
func outcome(res Result, runErr error) error {
	n := map[string]int{}
	for _, m := range slices.Concat(res.Messages, res.Earlier) {
		n[m.State]++
	}
	total := len(res.Messages) + len(res.Earlier)
	var err error
	switch {
	case n[journal.SMSUnknown] > 0:
		err = &ExitError{ExitUnknown, fmt.Errorf("%w: %d of %d messages may have been sent; see calq sms status", ErrUnknown, n[journal.SMSUnknown], total)}
	case n[journal.SMSQueued] > 0:
		err = &ExitError{ExitQueued, fmt.Errorf("%w: %d of %d messages wait for a retry", ErrQueued, n[journal.SMSQueued], total)}
	case n[journal.SMSFailed] > 0 && n[journal.SMSSent] > 0:
		err = &ExitError{ExitPartial, fmt.Errorf("%w: %d of %d messages failed", exitcode.ErrPartial, n[journal.SMSFailed], total)}
	case n[journal.SMSFailed] > 0:
		err = &ExitError{ExitFailure, fmt.Errorf("%d of %d messages failed", n[journal.SMSFailed], total)}
	default:
		return nil
	}
	if runErr != nil {
		err = &ExitError{err.(*ExitError).Code, errors.Join(err.(*ExitError).Err, runErr)}
	}
	return err
}

// classify gives an error that happened before any message had an outcome
// its exit status.
func classify(err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return &ExitError{ExitUsage, err}
	}
	return &ExitError{ExitFailure, err}
}
