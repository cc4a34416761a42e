package sms

import (
	"errors"
	"fmt"
	"slices"

	"calq/internal/exitcode"
	"calq/sms/store"
)

// The outcomes of a send that are not plain success or failure, for the
// command line to map to its exit statuses (package sms knows no
// numbers). Send's error wraps the worst that applies: ErrUnknown before
// ErrQueued before exitcode.ErrPartial; ErrUsage for bad arguments.
var (
	// ErrUnknown: the outcome of some message is unknown; it may have
	// been sent (a timeout after its PDU was written).
	ErrUnknown = errors.New("outcome unknown")
	// ErrQueued: some message is left queued, for a retry, a later time
	// or the daemon.
	ErrQueued = errors.New("left queued")
	// ErrUsage: the arguments are wrong; nothing was recorded.
	ErrUsage = errors.New("usage")
)

// outcome decides what the states of the messages, this run's and the
// earlier ones it settled, add up to: any unknown wraps ErrUnknown, else
// any still queued ErrQueued, else failures exitcode.ErrPartial (some
// sent) or a plain error (none sent), else nil.
func outcome(res Result, runErr error) error {
	n := map[string]int{}
	for _, m := range slices.Concat(res.Messages, res.Earlier) {
		n[m.State]++
	}
	total := len(res.Messages) + len(res.Earlier)
	var err error
	switch {
	case n[store.SMSUnknown] > 0:
		err = fmt.Errorf("%w: %d of %d messages may have been sent; see calq sms status", ErrUnknown, n[store.SMSUnknown], total)
	case n[store.SMSQueued] > 0:
		err = fmt.Errorf("%w: %d of %d messages wait for a retry", ErrQueued, n[store.SMSQueued], total)
	case n[store.SMSFailed]+n[store.SMSCancelled] > 0 && n[store.SMSSent] > 0:
		err = fmt.Errorf("%w: %s", exitcode.ErrPartial, failedOf(n, total))
	case n[store.SMSFailed]+n[store.SMSCancelled] > 0:
		err = errors.New(failedOf(n, total))
	default:
		return nil
	}
	return errors.Join(err, runErr)
}

// failedOf says how many of total messages failed, or were cancelled
// (through calq serve's DELETE /sms/{id}) before any part went out.
func failedOf(n map[string]int, total int) string {
	if n[store.SMSCancelled] == 0 {
		return fmt.Sprintf("%d of %d messages failed", n[store.SMSFailed], total)
	}
	return fmt.Sprintf("%d of %d messages failed or were cancelled", n[store.SMSFailed]+n[store.SMSCancelled], total)
}

// classify is an error that happened before any message had an outcome:
// a usage error (errors.Is ErrUsage) or a failure, as it is.
func classify(err error) error { return err }

// messages writes n and "message", made plural unless n is 1.
func messages(n int) string {
	if n == 1 {
		return "1 message"
	}
	return fmt.Sprintf("%d messages", n)
}
