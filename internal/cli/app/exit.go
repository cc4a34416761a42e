package app

import (
	"calq/analyze"
	"calq/convert"
	"calq/internal/cli/base"
	"calq/internal/exitcode"
	"calq/sched/schedbench"
	"calq/sms"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit statuses; exitStatuses documents them in help and the README.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitPartial     = 3
	exitQueued      = 4 // calq sms send: left queued for a retry
	exitUnknown     = 5 // calq sms send: a message's outcome is unknown
	exitInterrupted = 130
)

// exitStatuses documents the statuses in help and the README, in the
// order of their precedence when one run has several outcomes: a message
// whose fate is unknown outranks one left queued, which outranks a usage
// error, which outranks a partial failure. smsOnly rows show in the help
// of calq sms's commands alone.
var exitStatuses = []struct {
	code    int
	meaning string
	smsOnly bool
}{
	{exitOK, "success", false},
	{exitUnknown, "calq sms: the outcome of some message is unknown (the modem took it but did not answer)", true},
	{exitQueued, "calq sms: some message is left queued, for a retry or for the daemon (or spooled on this machine for a shared outbox that did not answer)", true},
	{exitUsage, "usage error: unknown command or flag, missing or invalid argument or flag value", false},
	{exitPartial, "partial failure: some items of a batch failed, the others succeeded", false},
	{exitFailure, "failure: nothing succeeded", false},
	{exitInterrupted, "interrupted by SIGINT or SIGTERM", false},
}

func exitStatusHelp(sms bool) string {
	var b strings.Builder
	b.WriteString("\nEXIT STATUS (the first that applies):\n")
	for _, s := range exitStatuses {
		if s.smsOnly && !sms {
			continue
		}
		fmt.Fprintf(&b, "   %-5d%s\n", s.code, s.meaning)
	}
	return b.String()
}

// interrupted marks err, the result of a run cut short by a signal, so
// that it exits with status 130 and names the signal.
func interrupted(cause, err error) error {
	if err == nil {
		// The command finished anyway, but its output may be incomplete.
		return cause
	}
	if errors.Is(err, cause) {
		return err // it says so already
	}
	return fmt.Errorf("%w (%w)", err, cause)
}

// ExitCode is the one place that decides calq's exit status, by the
// precedence exitStatuses documents. Packages return sentinel errors and
// know no numbers.
func ExitCode(err error) int {
	var ue *base.UsageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, sms.ErrUnknown):
		return exitUnknown
	case errors.Is(err, sms.ErrQueued):
		return exitQueued
	case errors.As(err, &ue), errors.Is(err, sms.ErrUsage), errors.Is(err, schedbench.ErrOptions), errors.Is(err, analyze.ErrInput),
		errors.Is(err, convert.ErrUsage):
		return exitUsage
	case errors.Is(err, exitcode.ErrPartial):
		return exitPartial
	}
	return exitFailure
}

// Report prints err as "calq: message" and any hints an error in its
// chain carries as "calq: hint: ..." lines.
func Report(w io.Writer, err error) {
	if err == nil {
		return
	}
	// errors.Join puts one error per line; each gets the prefix.
	// Each line escaped: an error may quote a file, a label or what a
	// database or a modem said.
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "calq: %s\n", base.SafeText(line))
	}
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		fmt.Fprintf(w, "calq: hint: %s\n", base.SafeText(h.Hint()))
	}
}
