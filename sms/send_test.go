package sms

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/internal/exitcode"
	"calq/sms/emu"
	"calq/sms/store"
)

// TestSendShortAndLong sends a one-part and a three-part message and checks
// the emulator's log: exactly those PDUs, decoding to the input, every part
// of one message on one device with one reference.
func TestSendShortAndLong(t *testing.T) {
	r := newRig(t, emu2())
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 9)[:400]
	for _, tc := range []struct {
		name, to, text string
		parts          int
	}{
		{"short", "+491701234567", "hello", 1},
		{"long", "+491707654321", long, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(r.log.records(t))
			res, err := Send(context.Background(), r.opts([]string{tc.to}, tc.text))
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if len(res.Messages) != 1 || res.Messages[0].State != store.SMSSent {
				t.Fatalf("got %+v, want one message sent", res)
			}
			recs := r.log.records(t)[before:]
			if len(recs) != tc.parts {
				t.Fatalf("got %d PDUs logged, want %d", len(recs), tc.parts)
			}
			var text strings.Builder
			for i, rec := range recs {
				if rec.msg.DA != tc.to {
					t.Errorf("part %d to %q, want %q", i+1, rec.msg.DA, tc.to)
				}
				if rec.Device != recs[0].Device {
					t.Errorf("part %d on %s, part 1 on %s", i+1, rec.Device, recs[0].Device)
				}
				if tc.parts > 1 && (rec.msg.Concat == nil || rec.msg.Concat.Ref != recs[0].msg.Concat.Ref || rec.msg.Concat.Seq != i+1) {
					t.Errorf("part %d concat %+v, want seq %d with part 1's ref", i+1, rec.msg.Concat, i+1)
				}
				text.WriteString(rec.msg.Text)
			}
			if text.String() != tc.text {
				t.Errorf("got text %q, want %q", text.String(), tc.text)
			}
			if got := res.Messages[0].MR; len(got) != tc.parts || got[0] < 0 {
				t.Errorf("got message references %v, want %d known", got, tc.parts)
			}
		})
	}
}

// TestSendResumes records a message without sending it (as a calq killed
// right after the journal write leaves it). The next Send sends only its
// own message and counts the one left behind; a Send with Queued sends it.
func TestSendResumes(t *testing.T) {
	r := newRig(t, emu2())
	o := r.opts([]string{"+491700000001"}, "left behind")
	o.NoWait = true
	res, err := Send(context.Background(), o)
	if !errors.Is(err, ErrQueued) || res.Messages[0].State != store.SMSQueued {
		t.Fatalf("NoWait: got %+v, %v; want queued, ErrQueued (no daemon will send it)", res, err)
	}
	if n := len(r.log.records(t)); n != 0 {
		t.Fatalf("NoWait sent %d PDUs, want 0", n)
	}
	// A new process: the journal reopened.
	r.jn.Close()
	r.jn = r.openJournal(t)
	next, err := Send(context.Background(), r.opts([]string{"+491700000002"}, "next"))
	if err != nil || next.StillQueued != 1 || len(next.Earlier) != 0 {
		t.Fatalf("Send: %+v, %v; want its own message sent and 1 earlier one still queued", next, err)
	}
	m, err := r.st.SMS(context.Background(), res.Messages[0].ID)
	if err != nil || m.State != store.SMSQueued {
		t.Fatalf("the message left behind: got %s, %v; want still queued", m.State, err)
	}
	q := r.opts(nil, "")
	q.Queued = true
	qres, err := Send(context.Background(), q)
	if err != nil || len(qres.Earlier) != 1 || qres.StillQueued != 0 {
		t.Fatalf("Send --queued: %+v, %v; want the earlier message settled", qres, err)
	}
	m, err = r.st.SMS(context.Background(), res.Messages[0].ID)
	if err != nil || m.State != store.SMSSent {
		t.Fatalf("the message left behind: got %s, %v; want sent", m.State, err)
	}
	if n := len(r.log.records(t)); n != 2 {
		t.Errorf("got %d PDUs, want 2", n)
	}
}

func TestExitCodes(t *testing.T) {
	msgs := func(states ...string) Result {
		var r Result
		for _, s := range states {
			r.Messages = append(r.Messages, MessageResult{State: s})
		}
		return r
	}
	for _, tc := range []struct {
		name string
		res  Result
		want string
	}{
		{"all sent", msgs("sent", "sent"), "ok"},
		{"all failed", msgs("failed"), "failure"},
		{"some failed", msgs("sent", "failed"), "partial"},
		{"queued", msgs("sent", "queued", "failed"), "queued"},
		{"unknown wins", msgs("queued", "unknown", "failed"), "unknown"},
		{"all cancelled", msgs("cancelled"), "failure"},
		{"some cancelled", msgs("sent", "cancelled"), "partial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outcomeOf(outcome(tc.res, nil)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	if got := outcomeOf(classify(&usageError{errors.New("x")})); got != "usage" {
		t.Errorf("usage: got %s, want usage", got)
	}
}

// TestSendModemMissing: a modem that does not answer is reported through
// Warn, and the messages go through the others; with no modem answering
// at all they stay queued (exit 4).
func TestSendModemMissing(t *testing.T) {
	r := newRig(t, emu2())
	missing := ModemSpec{Name: "m9", Device: filepath.Join(r.dir, "ttyUSB9")}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	o := r.opts([]string{"+491701234567"}, "two of three")
	o.Modems = append(o.Modems, missing)
	var warned []error
	o.Warn = func(err error) { warned = append(warned, err) }
	res, err := Send(ctx, o)
	if err != nil || res.Messages[0].State != store.SMSSent {
		t.Fatalf("got %+v, %v; want sent through the modems that answered", res, err)
	}
	if !slices.Equal(res.Modems, []string{"m0", "m1"}) {
		t.Errorf("used modems %v, want [m0 m1]", res.Modems)
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), "modem m9") {
		t.Errorf("warnings %v, want one naming modem m9", warned)
	}

	o = r.opts([]string{"+491701234567"}, "none answers")
	o.Modems = []ModemSpec{missing}
	res, err = Send(ctx, o)
	if got := outcomeOf(err); got != "queued" || res.Messages[0].State != store.SMSQueued {
		t.Fatalf("got %s (%v), state %s; want queued", got, err, res.Messages[0].State)
	}
	if !strings.Contains(err.Error(), "no modem answered") || !strings.Contains(err.Error(), "modem m9") {
		t.Errorf("error %q, want it to say no modem answered and name m9", err)
	}
}

// TestSendTransliterate: with Transliterate a text that would need UCS-2
// goes out in GSM 7-bit, the outbox keeps the text as sent, and every
// change is reported.
func TestSendTransliterate(t *testing.T) {
	r := newRig(t, emu2())
	o := r.opts([]string{"+491701234567"}, "“Déjà vu” – twice…")
	o.Transliterate = true
	res, err := Send(context.Background(), o)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	recs := r.log.records(t)
	if len(recs) != 1 || recs[0].msg.Text != `"Déjà vu" - twice...` || recs[0].msg.Encoding != "gsm7" {
		t.Fatalf("logged %+v, want one GSM 7-bit PDU with the transliterated text", recs)
	}
	m, err := r.st.SMS(context.Background(), res.Messages[0].ID)
	if err != nil || m.Text != recs[0].msg.Text {
		t.Errorf("outbox text %q (%v), want the text sent", m.Text, err)
	}
	var from []string
	for _, ch := range res.Transliterated {
		from = append(from, ch.From)
	}
	if want := []string{"“", "”", "–", "…"}; !slices.Equal(from, want) {
		t.Errorf("transliterated %+v, want changes from %q", res.Transliterated, want)
	}
}

// TestSendAfterCrashMidPart: a part recorded as being sent (a calq killed
// after writing its PDU, before the modem answered) is not sent again: the
// message ends unknown. A send of a new message leaves it alone; the
// send of the queued messages settles it, lists it and says unknown.
func TestSendAfterCrashMidPart(t *testing.T) {
	r := newRig(t, emu2())
	ctx := context.Background()
	o := r.opts([]string{"+491700000001"}, "in flight when calq died")
	o.NoWait = true
	res, err := Send(ctx, o)
	if !errors.Is(err, ErrQueued) {
		t.Fatal(err)
	}
	id := res.Messages[0].ID
	if err := r.st.SMSPartSending(ctx, id, 1, "m0"); err != nil {
		t.Fatal(err)
	}
	res, err = Send(ctx, r.opts([]string{"+491700000002"}, "next"))
	if err != nil || len(res.Messages) != 1 || res.Messages[0].State != store.SMSSent || len(res.Earlier) != 0 {
		t.Fatalf("the next send: %+v, %v; want its own message sent, the earlier one left alone", res, err)
	}
	q := r.opts(nil, "")
	q.Queued = true
	res, err = Send(ctx, q)
	if got := outcomeOf(err); got != "unknown" || !errors.Is(err, ErrUnknown) {
		t.Fatalf("send --queued: %s (%v), want unknown: it settled the earlier message as unknown", got, err)
	}
	if len(res.Earlier) != 1 || res.Earlier[0].ID != id || res.Earlier[0].State != store.SMSUnknown {
		t.Errorf("the next send's earlier messages: %+v, want message %d unknown", res.Earlier, id)
	}
	m, err := r.st.SMS(ctx, id)
	if err != nil || m.State != store.SMSUnknown || !strings.Contains(m.Reason, "before the modem answered") {
		t.Fatalf("the message in flight: %s (%q), %v; want unknown, saying why", m.State, m.Reason, err)
	}
	for _, rec := range r.log.records(t) {
		if rec.msg.DA == "+491700000001" {
			t.Errorf("the part in flight when calq died was sent again on %s", rec.Device)
		}
	}
}

// TestSendUnknownPartThenRest: a part left unknown by an earlier run that
// allowed duplicates is not resent by one that does not; the other part
// goes out and the message ends unknown, not failed or queued: the run
// that settled it lists it and exits 5.
func TestSendUnknownPartThenRest(t *testing.T) {
	r := newRig(t, emu2())
	ctx := context.Background()
	o := r.opts([]string{"+491700000003"}, strings.Repeat("two parts ", 20))
	o.NoWait = true
	res, err := Send(ctx, o)
	if !errors.Is(err, ErrQueued) || res.Messages[0].Parts != 2 {
		t.Fatalf("got %+v, %v; want one message of 2 parts, queued", res, err)
	}
	id := res.Messages[0].ID
	if err := r.st.SMSPartUnknownRetry(ctx, id, 1, "m0", "unknown: no answer"); err != nil {
		t.Fatal(err)
	}
	o.NoWait, o.To, o.Text, o.Queued = false, nil, "", true
	res, err = Send(ctx, o)
	if got := outcomeOf(err); got != "unknown" || len(res.Earlier) != 1 || res.Earlier[0].ID != id {
		t.Fatalf("the next send: %s (%v), earlier %+v; want unknown, listing message %d", got, err, res.Earlier, id)
	}
	m, err := r.st.SMS(ctx, id)
	if err != nil || m.State != store.SMSUnknown {
		t.Fatalf("got %s (%q), %v; want unknown", m.State, m.Reason, err)
	}
	var seqs []int
	for _, rec := range r.log.records(t) {
		if rec.msg.DA == "+491700000003" {
			seqs = append(seqs, rec.msg.Concat.Seq)
		}
	}
	if !slices.Equal(seqs, []int{2}) {
		t.Errorf("parts sent %v, want only part 2", seqs)
	}
}

// TestSendAllowDuplicatesUnknown: with --allow-duplicates, a message whose
// every attempt went out without an answer ends unknown (exit 5), not
// failed: it may have arrived, more than once.
func TestSendAllowDuplicatesUnknown(t *testing.T) {
	r := newRig(t, emu.Options{Modems: 1, Seed: 1})
	for range 2 {
		if err := r.e.Inject(r.e.Devices()[0], emu.Fault{NoResult: true}); err != nil {
			t.Fatal(err)
		}
	}
	o := r.opts([]string{"+491700000005"}, "no answer")
	o.AllowDuplicates, o.Retries = true, 1
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Send(ctx, o)
	if got := outcomeOf(err); got != "unknown" || res.Messages[0].State != store.SMSUnknown {
		t.Fatalf("got %s (%v), state %s; want unknown", got, err, res.Messages[0].State)
	}
}

// outcomeOf names what err says of a send, as the command line reads it.
func outcomeOf(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrUnknown):
		return "unknown"
	case errors.Is(err, ErrQueued):
		return "queued"
	case errors.Is(err, ErrUsage):
		return "usage"
	case errors.Is(err, exitcode.ErrPartial):
		return "partial"
	}
	return "failure"
}
