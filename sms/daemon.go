package sms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"calq/sched"
	"calq/sched/journal"
	"calq/sms/at"
)

// DefaultHealthEvery is how often a daemon checks its modems unless
// told: a check costs nothing while a modem answers, and a modem pulled
// out is taken out within it rather than failing the messages given to it.
const DefaultHealthEvery = 2 * time.Second

// DaemonOptions are the options of Daemon; Journal and Specs are required.
type DaemonOptions struct {
	Journal *journal.Journal // the engine's jobs, the daemon's lease and its view of the modems
	Store   Store            // the outbox, the inbox and the PIN rejections
	Specs   []ModemSpec
	AT      at.Options

	// SendEvery is how often the outbox is read for queued messages that
	// are due (those calq sms send hands over); 1s when zero.
	SendEvery time.Duration
	// PollEvery is how often the modems are polled for received messages
	// (Receive), besides at once when one announces something; 10s when
	// zero, negative never (and announcements are ignored).
	PollEvery time.Duration
	Recv      RecvOptions

	// Sending, as in SendOptions.
	AllowDuplicates bool
	Retries         int
	Backoff         sched.Backoff
	FailLimit       int
	Cooldown        time.Duration
	// HealthEvery is how often the modems are checked: one that vanished
	// is taken out (its messages go to the others) and dialled again;
	// DefaultHealthEvery when zero.
	HealthEvery time.Duration

	// Metrics, when set, are the engine's metrics plus the daemon's
	// calq_sms_daemon_* series; they are written to MetricsFile (when set)
	// every MetricsEvery (15s when zero) and when Daemon returns.
	Metrics      *sched.Metrics
	MetricsFile  string
	MetricsEvery time.Duration

	Events func(sched.Event) // the engine's events
	// Feed, when set, runs before each read of the outbox, to add to it
	// (calq forwards what calq sms send spooled on this machine while the
	// shared outbox did not answer); its error goes to Warn.
	Feed func(ctx context.Context) error
	// Ready, when set, is called once the daemon holds the modems and
	// its lease, before it first reads the outbox.
	Ready func()
	// Warn receives problems that stop nothing: a failed poll, a modem
	// that did not answer at start. Dropped when nil.
	Warn func(error)
	// Changed, when set, is called after each change the daemon makes to
	// the outbox (a part sending, accepted with its reference, pending
	// again or failed; a message settled) and each inbox entry it files
	// (a message, a status report), so that a reader (calq serve's push
	// loop: smsapi.Service.Wake) looks now rather than at its next poll.
	// It runs on the daemon's goroutines, may be called often and must
	// return at once.
	Changed func()
	// Queued, when set, makes the daemon read the outbox at once when
	// it receives (calq serve signals each message its API queues),
	// rather than at its next SendEvery.
	Queued <-chan struct{}
}

func (o DaemonOptions) withDefaults() DaemonOptions {
	if o.SendEvery <= 0 {
		o.SendEvery = time.Second
	}
	if o.PollEvery == 0 {
		o.PollEvery = 10 * time.Second
	}
	if o.MetricsEvery <= 0 {
		o.MetricsEvery = 15 * time.Second
	}
	if o.Warn == nil {
		o.Warn = func(error) {}
	}
	return o
}

// Daemon holds the modems of o.Specs until ctx is done: it records its hold
// in the journal (DaemonHolds; calq sms send then hands its messages over
// through the outbox), opens the modems (taking their locks for its whole
// life), sends the queued messages as they become due, polls the modems
// for received messages every PollEvery (they are filed in the journal's
// inbox; o.Recv.Handle, when set, hands them out, else calq sms recv
// --offline does) and at once when a modem announces one (+CMTI, +CDSI;
// or hands it out, +CMT, +CDS: that PDU is recorded and filed like the
// listed ones), redials a modem that vanished (the pool's health
// checks) and writes the metrics file. It returns nil when ctx ends, after
// releasing the modems and the hold; an error when it could not start
// (ErrModemHeld: another daemon holds a modem).
func Daemon(ctx context.Context, o DaemonOptions) (err error) {
	o = o.withDefaults()
	if o.Journal == nil || o.Store == nil || len(o.Specs) == 0 {
		return &usageError{errors.New("daemon: no journal or no modems")}
	}
	var shared *sharedHold // on a shared store
	if ss, ok := sharedOf(o.Store); ok {
		if shared, o.Specs, err = holdShared(ctx, ss, o.Specs, o.Warn); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, shared.release()) }()
	} else {
		l, err := claimLease(ctx, o.Journal, o.Specs)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, l.release()) }()
	}
	pool, dialErr := OpenPool(ctx, withPINs(o.Specs, o.Store), o.AT)
	defer func() { err = errors.Join(err, pool.Close()) }()
	if dialErr != nil {
		o.Warn(fmt.Errorf("%w (dialled again every %v)", dialErr, cmp.Or(o.HealthEvery, DefaultHealthEvery)))
	}
	if err := recordView(ctx, o.Journal, o.Specs, pool, dialErr); err != nil {
		o.Warn(fmt.Errorf("record the modems' state for calq sms modems: %w", err))
	}
	breakers := newBreakerLog(o.Journal, o.Specs, pool, o.Warn)
	o.Events = breakers.withEvents(o.Events)
	dm := newDaemonMetrics(o.Metrics)
	stopMetrics := o.Metrics.WriteEvery(o.MetricsFile, o.MetricsEvery)
	defer func() {
		if merr := stopMetrics(); merr != nil {
			o.Warn(merr) // a side output: the daemon's own outcome stands
		}
	}()
	st := notifying(o.Store, o.Changed)
	dd, err := newDaemonDispatcher(pool, st, o)
	if err != nil {
		return err
	}
	if shared != nil {
		dd.claim, dd.limit = shared.claim, 4*len(o.Specs)
		shared.follow(dd.sending)
	}
	defer func() { err = errors.Join(err, dd.close()) }()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { breakers.run(ctx) })
	if o.Ready != nil {
		o.Ready()
	}
	if o.PollEvery > 0 {
		an := newAnnounced(o.Warn)
		pool.watchURC(an.watch)
		wg.Go(func() { receiveLoop(ctx, pool, st, o, dm, an) })
	}
	sendLoop(ctx, dd, o)
	return nil
}

// sendLoop submits the outbox's due messages every SendEvery until ctx ends.
func sendLoop(ctx context.Context, dd *daemonDispatcher, o DaemonOptions) {
	t := time.NewTicker(o.SendEvery)
	defer t.Stop()
	for {
		if o.Feed != nil {
			if err := o.Feed(ctx); err != nil && ctx.Err() == nil {
				o.Warn(fmt.Errorf("daemon: %w", err))
			}
		}
		if err := dd.submitDue(ctx); err != nil && ctx.Err() == nil {
			o.Warn(fmt.Errorf("daemon: send: %w", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-dd.wake:
		case <-o.Queued:
		}
	}
}

// daemonReceive is Receive, except that without o.Handle nothing is handed
// out: the entries stay new in the journal's inbox, for calq sms recv
// (which then needs no modem: --offline) to hand out. The PDUs still leave
// the modems once recorded, so the SIM never fills.
func daemonReceive(ctx context.Context, conns []*Conn, j Inbox, o RecvOptions, direct map[string][]string) ([]Inbound, error) {
	if o.Handle != nil {
		return receive(ctx, conns, j, o, direct)
	}
	o = o.withDefaults()
	o.Keep = false
	errs, _ := pollAndFile(ctx, conns, j, o, direct)
	return nil, errors.Join(errs...)
}
