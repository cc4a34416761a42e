package base

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"calq/sched"
)

func TestLogModemEvent(t *testing.T) {
	at := time.Date(2026, 11, 22, 7, 40, 12, 0, time.Local)
	for _, tc := range []struct {
		ev   sched.Event
		want string
	}{
		{sched.Event{Type: sched.EventBackendDown, Time: at, Backend: "gsm2", Err: errors.New("modem gsm2: open /dev/ttyUSB1: no such file or directory")},
			"calq: 2026-11-22 07:40:12 modem gsm2: down: open /dev/ttyUSB1: no such file or directory\n"},
		{sched.Event{Type: sched.EventBackendUp, Time: at, Backend: "gsm2"}, "calq: 2026-11-22 07:40:12 modem gsm2: up again\n"},
		{sched.Event{Type: sched.EventKindEnabled, Time: at, Backend: "gsm1", Message: "backend gsm1 takes kind \"sms\" again after its cooldown"},
			"calq: 2026-11-22 07:40:12 modem gsm1: backend gsm1 takes kind \"sms\" again after its cooldown\n"},
		{sched.Event{Type: sched.EventDone, Time: at, Backend: "gsm1", Job: &sched.Job{}}, ""},
		{sched.Event{Type: sched.EventJournalError, Time: at}, ""},
	} {
		var b bytes.Buffer
		logModemEvent(&b, tc.ev)
		if b.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.ev.Type, b.String(), tc.want)
		}
	}
}
