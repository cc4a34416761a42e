package sms

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"calq/sched"
	"calq/sched/journal"
	"calq/sms/at"
	"calq/sms/pdu"
	"calq/sms/store"
)

// SendOptions are the options of Send; Journal, Store, To and Modems are required
// (Modems unless NoWait; neither Journal nor Modems on a shared Store,
// where only daemons send).
type SendOptions struct {
	Journal *journal.Journal // the engine's jobs
	Store   Store            // the outbox and the PIN rejections (store.Open on the journal)
	To      []string         // phone numbers, one message each
	Text    string

	Flash bool
	// Transliterate replaces characters outside GSM 7-bit by close ones
	// when that makes the whole text fit (one part holds 160 rather than
	// 70 characters); each change is reported through Warn.
	Transliterate bool
	// Coding is the alphabet: "" chooses (GSM 7-bit when the text fits,
	// else UCS-2); "gsm7" refuses a text GSM 7-bit lacks characters of
	// (after Transliterate); "ucs2" sends UCS-2 even when GSM 7-bit would
	// do; "8bit" sends the text's bytes as 8-bit data (the outbox stores
	// them as hex, as the inbox shows received data).
	Coding   string
	Report   bool          // ask for a status report
	Validity time.Duration // relative validity; 0 for the network's default
	Priority sched.Class   // the zero Class is P2
	At       time.Time     // not before this time (the engine's calendar queue holds it)

	// NoWait records the messages and returns at once: a daemon, or a
	// Send with Queued, sends them.
	NoWait bool
	// Queued sends the messages earlier runs left queued (due now),
	// recording none: To and Text must be empty. Without it, Send sends
	// only the messages it records.
	Queued bool
	// Timeout bounds the whole send; messages not settled by then stay
	// queued (exit status 4). 0: no limit beyond ctx.
	Timeout time.Duration
	// AllowDuplicates resends a part whose outcome is unknown (a timeout
	// after the PDU was written), at the risk of a duplicate.
	AllowDuplicates bool

	Modems      []ModemSpec
	AT          at.Options
	Retries     int           // per message, for transient errors; 0 means sched.DefaultRetries, negative none
	Backoff     sched.Backoff // retry delays; the engine's defaults when zero
	FailLimit   int           // failures in a row before a modem stops taking messages; the engine's default (5) when 0
	Cooldown    time.Duration // how long such a modem stays out before it is tried again; the engine's default (1m) when 0
	Metrics     *sched.Metrics
	HealthEvery time.Duration // how often a modem that vanished is dialled again; 30s when 0
	Events      func(sched.Event)
	Warn        func(error) // problems that stop nothing, such as a modem that did not answer; dropped when nil
}

// MessageResult is what became of one message.
type MessageResult struct {
	ID     int64  `json:"id"`
	To     string `json:"to"`
	State  string `json:"state"` // queued, sent, failed, unknown
	Reason string `json:"reason,omitempty"`
	Modem  string `json:"modem,omitempty"`
	Parts  int    `json:"parts"`
	MR     []int  `json:"mr"` // the network's message reference per part, -1 where unknown
}

// Result is the outcome of Send, one entry per recipient, in order.
type Result struct {
	Messages []MessageResult `json:"messages"`
	// Earlier are messages of earlier runs that this run settled: left
	// queued, or in flight when their run was killed (then unknown).
	// They count in the exit status.
	Earlier []MessageResult `json:"earlier,omitempty"`
	Modems  []string        `json:"modems,omitempty"` // the modems this process used
	// StillQueued counts the messages of earlier runs left queued, which
	// this run did not send (only Queued sends them).
	StillQueued int `json:"still_queued,omitempty"`
	// Transliterated lists what SendOptions.Transliterate changed.
	Transliterated []pdu.Change `json:"transliterated,omitempty"`
}

// Send records one message per recipient in the journal's outbox. When a
// live calq sms daemon holds the modems (DaemonHolds), that is the whole
// hand-over: Send waits (unless NoWait) until the daemon settles the
// messages, and takes the modems itself only if the daemon goes away.
// Otherwise Send (unless NoWait) opens the modems, sends its own messages
// and waits for their outcome; messages earlier runs left queued stay for
// the daemon or for a Send with Queued, which sends them instead of new
// ones. The error wraps ErrUnknown, ErrQueued, exitcode.ErrPartial or
// ErrUsage when the outcome is one of those.
func Send(ctx context.Context, o SendOptions) (Result, error) {
	if err := checkSend(o); err != nil {
		return Result{}, &usageError{err}
	}
	if o.Queued {
		return sendQueued(ctx, o)
	}
	ids, changes, err := Enqueue(ctx, o.Store, o)
	if err != nil {
		return Result{}, classify(err)
	}
	if o.Warn != nil {
		for _, ch := range changes {
			o.Warn(fmt.Errorf("transliterated %q → %q (%d×)", ch.From, ch.To, ch.Count))
		}
	}
	res, err := send(ctx, o, ids)
	res.Transliterated = changes
	return res, err
}

// send waits for the outcome of ids, recorded already.
func send(ctx context.Context, o SendOptions, ids []int64) (Result, error) {
	if o.NoWait {
		res, err := collect(ctx, o.Store, ids)
		if err != nil {
			return res, classify(err)
		}
		return res, handedOver(ctx, o, res)
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	if res, ok, err := sendThroughDaemon(ctx, o, ids); ok {
		return res, err
	}
	if IsShared(o.Store) {
		// Only the daemons send from a shared outbox.
		res, err := collect(context.WithoutCancel(ctx), o.Store, ids)
		if err != nil {
			return res, classify(err)
		}
		return res, ErrNoDaemon
	}
	names, earlier, runErr := SendPending(ctx, o, ids)
	rctx := context.WithoutCancel(ctx)
	res, err := collect(rctx, o.Store, ids)
	res.Modems = names
	if err == nil {
		res.Earlier, err = settledEarlier(rctx, o.Store, earlier)
	}
	if err == nil {
		res.StillQueued, err = stillQueued(rctx, o.Store, ids)
	}
	if err != nil {
		return res, classify(errors.Join(runErr, err))
	}
	return res, outcome(res, runErr)
}

// sendQueued sends what earlier runs left queued and is due: through the
// daemon when one holds the modems (it sends them anyway), else itself.
func sendQueued(ctx context.Context, o SendOptions) (Result, error) {
	if held, err := daemonHolds(ctx, o); err == nil && held {
		n, err := stillQueued(ctx, o.Store, nil)
		if err != nil {
			return Result{}, err
		}
		return Result{StillQueued: n}, fmt.Errorf("%w: calq sms daemon holds the modems and sends the queued ones (%s)", ErrQueued, messages(n))
	}
	if IsShared(o.Store) {
		n, err := stillQueued(ctx, o.Store, nil)
		if err != nil {
			return Result{}, err
		}
		return Result{StillQueued: n}, ErrNoDaemon
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	names, earlier, runErr := SendPending(ctx, o, nil)
	rctx := context.WithoutCancel(ctx)
	res := Result{Modems: names, Messages: []MessageResult{}}
	var err error
	res.Earlier, err = settledEarlier(rctx, o.Store, earlier)
	if err == nil {
		res.StillQueued, err = stillQueued(rctx, o.Store, nil)
	}
	if err != nil {
		return res, errors.Join(runErr, err)
	}
	if res.StillQueued > 0 {
		runErr = errors.Join(runErr, fmt.Errorf("%w: %s (not due yet, or not sent in time)", ErrQueued, messages(res.StillQueued)))
	}
	return res, outcome(res, runErr)
}

// stillQueued counts the queued messages of the outbox not in ids.
func stillQueued(ctx context.Context, jn Outbox, ids []int64) (int, error) {
	msgs, err := jn.ListSMS(ctx, store.SMSFilter{State: store.SMSQueued})
	n := 0
	for _, m := range msgs {
		if !slices.Contains(ids, m.ID) {
			n++
		}
	}
	return n, err
}

func checkSend(o SendOptions) error {
	switch {
	case o.Journal == nil && !IsShared(o.Store):
		return errors.New("send: no journal")
	case o.Store == nil:
		return errors.New("send: no outbox")
	case o.Queued && (len(o.To) > 0 || o.Text != ""):
		return errors.New("send: the queued messages, or new ones, not both")
	case o.Queued && o.NoWait:
		return errors.New("send: the queued messages cannot be sent without waiting")
	case o.Queued:
	case len(o.To) == 0:
		return errors.New("send: no recipients")
	case strings.TrimSpace(o.Text) == "":
		return errors.New("send: the text is empty")
	case !o.NoWait && len(o.Modems) == 0 && !IsShared(o.Store):
		return errors.New("send: no modems")
	}
	return nil
}

// SendPending opens the modems and sends the messages of ids whenever they
// are due, or, with o.Queued, every queued message that is due; it returns
// when they are all settled or ctx ends (they stay queued). It returns the
// modems it used and the ids of the messages it took up that are not in
// ids: those earlier runs left queued, or in flight when they were killed.
func SendPending(ctx context.Context, o SendOptions, ids []int64) (names []string, earlier []int64, err error) {
	pool, dialErr := OpenPool(ctx, withPINs(o.Modems, o.Store), o.AT)
	defer pool.Close()
	if len(pool.Conns()) == 0 {
		return nil, nil, fmt.Errorf("no modem answered: %w", dialErr)
	}
	if dialErr != nil && o.Warn != nil {
		o.Warn(dialErr)
	}
	d, err := newDispatcher(pool, o, nil)
	if err != nil {
		return nil, nil, err
	}
	names = d.names()
	msgs, err := pendingFor(ctx, o.Store, ids, o.Queued)
	if err == nil {
		err = d.run(ctx, msgs)
	}
	for _, m := range msgs {
		if !slices.Contains(ids, m.ID) {
			earlier = append(earlier, m.ID)
		}
	}
	return names, earlier, errors.Join(err, d.close())
}

// settledEarlier reads what became of the messages of ids that are no longer
// queued.
func settledEarlier(ctx context.Context, jn Outbox, ids []int64) ([]MessageResult, error) {
	res, err := collect(ctx, jn, ids)
	return slices.DeleteFunc(res.Messages, func(m MessageResult) bool { return m.State == store.SMSQueued }), err
}

// pendingFor lists the queued messages of ids, and with all the queued
// messages due now too.
func pendingFor(ctx context.Context, jn Outbox, ids []int64, all bool) ([]store.SMSMessage, error) {
	var msgs []store.SMSMessage
	if all {
		var err error
		if msgs, err = jn.ListSMS(ctx, store.SMSFilter{State: store.SMSQueued, DueUntil: time.Now()}); err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		if slices.ContainsFunc(msgs, func(m store.SMSMessage) bool { return m.ID == id }) {
			continue
		}
		m, err := jn.SMS(ctx, id)
		if err != nil {
			return nil, err
		}
		if m.State == store.SMSQueued {
			msgs = append(msgs, m)
		}
	}
	return msgs, nil
}

// collect reads what became of ids.
func collect(ctx context.Context, jn Outbox, ids []int64) (Result, error) {
	var res Result
	for _, id := range ids {
		m, err := jn.SMS(ctx, id)
		if err != nil {
			return res, err
		}
		mr := make([]int, len(m.Parts))
		for i, p := range m.Parts {
			mr[i] = p.MR
		}
		res.Messages = append(res.Messages, MessageResult{ID: m.ID, To: m.To, State: m.State,
			Reason: m.Reason, Modem: m.Modem, Parts: len(m.Parts), MR: mr})
	}
	return res, nil
}

func parseID(payload []byte) (int64, bool) {
	id, err := strconv.ParseInt(string(payload), 10, 64)
	return id, err == nil
}

func describe(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprint(err)
}
