package base

import (
	"fmt"
	"io"
	"strings"
	"time"

	"calq/sched"
)

// ModemLog is the log of a process that holds modems (calq sms daemon,
// calq worker --kinds sms) on w: warn prints each warning on a line
// after prefix; events prints what happens to a modem (down, up, taken
// out by the circuit breaker, back), a line each, and nothing of jobs.
func ModemLog(w io.Writer, prefix string) (warn func(error), events func(sched.Event)) {
	warn = func(err error) { fmt.Fprintf(w, "%s%s\n", prefix, SafeText(err.Error())) }
	return warn, func(ev sched.Event) { logModemEvent(w, ev) }
}

func logModemEvent(w io.Writer, ev sched.Event) {
	if ev.Job != nil {
		return
	}
	var what string
	switch ev.Type {
	case sched.EventBackendDown:
		what = "down: " + strings.TrimPrefix(fmt.Sprint(ev.Err), "modem "+ev.Backend+": ")
	case sched.EventBackendUp:
		what = "up again"
	case sched.EventKindDisabled, sched.EventKindEnabled, sched.EventKindKept:
		what = ev.Message
	default:
		return
	}
	fmt.Fprintln(w, SafeText(fmt.Sprintf("calq: %s modem %s: %s", ev.Time.Format(time.DateTime), ev.Backend, what)))
}
