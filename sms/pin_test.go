package sms

import (
	"context"
	"errors"
	"testing"
	"time"

	"calq/sms/at"
	"calq/sms/emu"
)

// pinRig is a rig whose one emulated SIM asks for PIN 1234.
type pinRig struct {
	*rig
	dev string
}

func newPINRig(t *testing.T) *pinRig {
	t.Helper()
	r := newRig(t, emu.Options{Modems: 1, Seed: 1, PIN: "1234"})
	return &pinRig{r, r.e.Devices()[0]}
}

func (r *pinRig) specs(pin string) []ModemSpec {
	return []ModemSpec{{Name: "m0", Device: r.dev, PIN: pin}}
}

// send runs calq sms send's Send with pin as the modem's PIN source.
func (r *pinRig) send(pin string) func(*testing.T) error {
	return func(t *testing.T) error {
		o := r.opts([]string{"+491700000010"}, "pin test")
		o.Modems = r.specs(pin)
		_, err := Send(context.Background(), o)
		return err
	}
}

// survey runs calq sms modems' Survey, with --retry-pin retry when set.
func (r *pinRig) survey(pin, retry string) func(*testing.T) error {
	return func(t *testing.T) error {
		st, err := Survey(context.Background(), r.specs(pin), SurveyOptions{AT: r.opts(nil, "").AT, PINs: r.st, RetryPIN: retry})
		if err != nil {
			return err
		}
		if st[0].Err != nil && errors.Is(st[0].Err, ErrPINRejected) != (st[0].State == ModemPINRejected) {
			t.Errorf("modem state %q for %v", st[0].State, st[0].Err)
		}
		return st[0].Err
	}
}

// daemon runs the daemon until the SIM has been asked AT+CPIN? 5 more
// times: its health check dialled the modem again and again.
func (r *pinRig) daemon(pin string) func(*testing.T) error {
	return func(t *testing.T) error {
		before := r.sim(t).Queries
		d := startDaemonOn(t, r.rig, r.specs(pin), func(error) {})
		for deadline := time.Now().Add(30 * time.Second); r.sim(t).Queries < before+5; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the daemon asked the SIM's state %d times in 30s, want 5", r.sim(t).Queries-before)
			}
		}
		d.stop(t)
		return nil
	}
}

func (r *pinRig) sim(t *testing.T) emu.SIMStatus {
	t.Helper()
	st, err := r.e.SIM(r.dev)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

type pinStep struct {
	name      string
	run       func(*testing.T) error
	want      error // errors.Is; nil for success
	wantWrong int   // wrong PIN entries the SIM has counted after the step
}

// runPINSteps runs steps in order on one SIM and checks the error and the
// SIM's count of wrong PINs after each.
func runPINSteps(t *testing.T, r *pinRig, steps []pinStep) {
	t.Helper()
	for _, s := range steps {
		err := s.run(t)
		if got := r.sim(t).WrongPINs; got != s.wantWrong {
			t.Fatalf("%s: the SIM counted %d wrong PINs, want %d", s.name, got, s.wantWrong)
		}
		if s.want == nil && err != nil || s.want != nil && !errors.Is(err, s.want) {
			t.Fatalf("%s: got %v, want %v", s.name, err, s.want)
		}
	}
}

// TestPINNeverGuessedTwice: after the SIM refused a PIN, neither more
// sends, nor calq sms modems, nor a daemon redialling for a while enter
// it again; a changed PIN source is tried once; the last try is never
// spent, not even with --retry-pin.
func TestPINNeverGuessedTwice(t *testing.T) {
	r := newPINRig(t)
	runPINSteps(t, r, []pinStep{
		{"wrong pin", r.send("0000"), at.ErrPINRejected, 1},
		{"send again", r.send("0000"), ErrPINRejected, 1},
		{"send a third time", r.send("0000"), ErrPINRejected, 1},
		{"modems", r.survey("0000", ""), ErrPINRejected, 1},
		{"daemon for a while", r.daemon("0000"), nil, 1},
		{"pin source changed", r.send("1111"), ErrPINRejected, 2},
		{"changed pin again", r.send("1111"), ErrPINRejected, 2},
		{"retry-pin with 1 try left", r.survey("1111", "m0"), at.ErrLastTry, 2},
		{"right pin with 1 try left", r.send("1234"), at.ErrLastTry, 2},
	})
	if st := r.sim(t); st.State != emu.SIMPIN || st.PINLeft != 1 {
		t.Errorf("SIM %+v, want SIM PIN with 1 try left", st)
	}
}

// TestPINRetry: --retry-pin enters a refused PIN once more, once.
func TestPINRetry(t *testing.T) {
	r := newPINRig(t)
	runPINSteps(t, r, []pinStep{
		{"wrong pin", r.survey("0000", ""), at.ErrPINRejected, 1},
		{"retry-pin", r.survey("0000", "m0"), ErrPINRejected, 2},
		{"after retry-pin", r.survey("0000", ""), ErrPINRejected, 2},
		{"send after retry-pin", r.send("0000"), ErrPINRejected, 2},
		{"retry-pin names no modem", r.survey("0000", "m9"), errNoSuchModem, 2},
	})
}

// TestPINRightClears: once the PIN source gives the right PIN, the SIM
// takes it and the record of the refusal goes, so the modem is ready.
func TestPINRightClears(t *testing.T) {
	r := newPINRig(t)
	runPINSteps(t, r, []pinStep{
		{"wrong pin", r.survey("0000", ""), at.ErrPINRejected, 1},
		{"right pin", r.survey("1234", ""), nil, 1},
		{"send", r.send("1234"), nil, 1},
	})
	if _, found, err := r.st.PINRejection(context.Background(), "iccid:8949020000000000000"); found || err != nil {
		t.Errorf("a rejection is still recorded (%v) after the SIM took the PIN", err)
	}
}

// TestPINRecordHasNoPIN: the journal holds a salted hash of the refused
// PIN, not the PIN, under the SIM's ICCID.
func TestPINRecordHasNoPIN(t *testing.T) {
	r := newPINRig(t)
	if err := r.survey("0000", "")(t); !errors.Is(err, ErrPINRejected) {
		t.Fatalf("got %v, want %v", err, ErrPINRejected)
	}
	rec, found, err := r.st.PINRejection(context.Background(), "iccid:8949020000000000000")
	if err != nil || !found {
		t.Fatalf("no rejection recorded under the ICCID (%v)", err)
	}
	if len(rec.Salt) < 16 || len(rec.Fingerprint) != 32 || string(rec.Fingerprint) == "0000" || rec.Modem != "m0" {
		t.Errorf("record %+v, want a 16-byte salt, a 32-byte hash and modem m0", rec)
	}
	if same, err := samePIN("0000", rec); !same || err != nil {
		t.Errorf("samePIN(0000) = %v, %v; want true", same, err)
	}
	if same, _ := samePIN("1111", rec); same {
		t.Errorf("samePIN(1111) = true, want false")
	}
}
