package sms

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"calq/sched"
	"calq/sms/pdu"
	"calq/sms/store"
)

// Message options as the outbox stores them (sms_messages.options, JSON).
type messageOptions struct {
	Flash    bool   `json:"flash,omitempty"`
	Report   bool   `json:"report,omitempty"`
	Validity string `json:"validity,omitempty"`
	Priority string `json:"priority"`
	Coding   string `json:"coding,omitempty"` // SendOptions.Coding; "" chosen
}

// Compose encodes text for each recipient and returns the outbox records,
// not yet stored. Each message's concatenation reference is chosen here,
// once, and stored with its parts: a retry resends the same PDUs. With
// o.Transliterate, characters outside GSM 7-bit are replaced when that
// makes the whole text fit (the changes are returned, and the text stored
// is the one sent).
func Compose(to []string, text string, o SendOptions) ([]store.SMSMessage, []pdu.Change, error) {
	if len(to) == 0 {
		return nil, nil, errors.New("compose: no recipients")
	}
	text, changes, err := composeText(text, o)
	if err != nil {
		return nil, nil, err
	}
	opts, err := json.Marshal(messageOptions{Flash: o.Flash, Report: o.Report,
		Validity: durationText(o.Validity), Priority: o.Priority.String(), Coding: o.Coding})
	if err != nil {
		return nil, nil, err
	}
	stored := text
	if o.Coding == "8bit" {
		stored = hex.EncodeToString([]byte(text))
	}
	msgs := make([]store.SMSMessage, 0, len(to))
	for _, r := range to {
		parts, err := composeParts(r, text, o)
		if err != nil {
			return nil, nil, fmt.Errorf("compose for %s: %w", r, err)
		}
		m := store.SMSMessage{To: r, Text: stored, Options: string(opts), NotBefore: o.At}
		for _, p := range parts {
			m.Parts = append(m.Parts, store.SMSPart{Seq: p.Seq, Total: p.Total, Ref: p.Ref, Hex: p.Hex, TPDULength: p.TPDULength})
		}
		msgs = append(msgs, m)
	}
	return msgs, changes, nil
}

// composeText checks text against o.Coding, transliterating it when o
// asks and that makes it fit GSM 7-bit. 8-bit data is taken as it is.
func composeText(text string, o SendOptions) (string, []pdu.Change, error) {
	switch o.Coding {
	case "8bit":
		return text, nil, nil
	case "", "gsm7", "ucs2":
	default:
		return "", nil, fmt.Errorf(`compose: coding %q: want "", "gsm7", "ucs2" or "8bit"`, o.Coding)
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		// PostgreSQL's text takes no NUL, and SQLite would keep it where
		// PostgreSQL fails: refused the same on both, before anything is
		// recorded.
		return "", nil, fmt.Errorf("compose: the text holds a NUL character (U+0000) at byte %d; no phone shows it", i)
	}
	var changes []pdu.Change
	if o.Transliterate && o.Coding != "ucs2" && !pdu.FitsGSM(text) {
		if t, ch := pdu.Transliterate(text); pdu.FitsGSM(t) {
			text, changes = t, ch
		}
	}
	if o.Coding == "gsm7" && !pdu.FitsGSM(text) {
		for i, r := range []rune(text) {
			if !pdu.FitsGSM(string(r)) {
				return "", nil, fmt.Errorf("compose: GSM 7-bit lacks %q (%U) at character %d of the text", string(r), r, i+1)
			}
		}
	}
	return text, changes, nil
}

// composeParts encodes one recipient's PDUs in o.Coding.
func composeParts(to, text string, o SendOptions) ([]pdu.Part, error) {
	so := pdu.SubmitOptions{Flash: o.Flash, Report: o.Report, Validity: o.Validity, UCS2: o.Coding == "ucs2"}
	if o.Coding == "8bit" {
		return pdu.EncodeSubmitData(to, []byte(text), so)
	}
	parts, _, err := pdu.EncodeSubmit(to, text, so)
	return parts, err
}

func durationText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// Enqueue composes and records the messages in the journal (durable before
// any AT traffic) and returns their ids and what was transliterated. When
// recording fails the error wraps ErrNotRecorded: none of them was.
func Enqueue(ctx context.Context, jn Outbox, o SendOptions) ([]int64, []pdu.Change, error) {
	msgs, changes, err := Compose(o.To, o.Text, o)
	if err != nil {
		return nil, nil, &usageError{err}
	}
	ids, err := jn.AddSMS(ctx, msgs)
	if err != nil {
		return nil, changes, &notRecorded{err}
	}
	return ids, changes, nil
}

// ErrNotRecorded is wrapped by Send's error when recording the messages
// failed (one transaction: none was), so that the caller may keep them
// elsewhere, as calq sms send spools them when a shared outbox's server
// went away between opening it and the insert.
var ErrNotRecorded = errors.New("not recorded")

// notRecorded marks err, from recording messages: errors.Is(err,
// ErrNotRecorded) holds; its message is err's.
type notRecorded struct{ err error }

func (e *notRecorded) Error() string        { return e.err.Error() }
func (e *notRecorded) Unwrap() error        { return e.err }
func (e *notRecorded) Is(target error) bool { return target == ErrNotRecorded }

// jobKey is the sched job key of outbox message id.
func jobKey(id int64) string { return fmt.Sprintf("sms:%d", id) }

// Outbox is what sending needs of the outbox: recording messages, the
// life of each part, and settling a message from its parts. *store.Store
// keeps it in the journal's file; store.Mem in memory, for tests.
type Outbox interface {
	AddSMS(ctx context.Context, msgs []store.SMSMessage) ([]int64, error)
	SMS(ctx context.Context, id int64) (store.SMSMessage, error)
	ListSMS(ctx context.Context, f store.SMSFilter) ([]store.SMSMessage, error)
	SMSPartSending(ctx context.Context, id int64, seq int, modem string) error
	SMSPartPending(ctx context.Context, id int64, seq int) error
	SMSPartAccepted(ctx context.Context, id int64, seq int, modem string, mr int) (done bool, err error)
	SMSPartFailed(ctx context.Context, id int64, seq int, state, modem, reason string) error
	SMSPartUnknownRetry(ctx context.Context, id int64, seq int, modem, reason string) error
	SettleSMS(ctx context.Context, id int64) (done bool, err error)
	FinishSMS(ctx context.Context, id int64, state, reason string) (changed bool, err error)
}

// Store is the outbox, the inbox and the PIN rejections together, as
// Send, Daemon and Status take them.
type Store interface {
	Outbox
	Inbox
	PINStore
}

// Kind is the job kind of sending a message, in the journal and in the
// shared queue (the shared outbox that calq worker --kinds sms serves).
const Kind = "sms"

// jobFor is the engine job that sends message m.
func jobFor(m store.SMSMessage, class sched.Class, retries int) *sched.Job {
	return &sched.Job{
		Key: jobKey(m.ID), Kind: Kind, Payload: fmt.Appendf(nil, "%d", m.ID), Label: m.To,
		Class: class, NotBefore: m.NotBefore, Retries: retries,
		Backend: pinnedModem(m),
	}
}

// pinnedModem is the modem that accepted some of m's parts already: the
// rest must go through it too, with the same reference. "" when none.
func pinnedModem(m store.SMSMessage) string {
	for _, p := range m.Parts {
		if (p.State == store.SMSAccepted || p.State == store.SMSUnknown) && p.Modem != "" {
			return p.Modem
		}
	}
	return ""
}

// classOf reads the priority stored with a message; P2 when absent.
func classOf(m store.SMSMessage) sched.Class {
	var o messageOptions
	if json.Unmarshal([]byte(m.Options), &o) != nil || o.Priority == "" {
		return sched.P2
	}
	c, err := sched.ParseClass(o.Priority)
	if err != nil {
		return sched.P2
	}
	return c
}

// usageError marks a bad argument: errors.Is(err, ErrUsage) holds.
type usageError struct{ err error }

func (e *usageError) Error() string        { return e.err.Error() }
func (e *usageError) Unwrap() error        { return e.err }
func (e *usageError) Is(target error) bool { return target == ErrUsage }
