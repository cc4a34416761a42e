package sms

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"calq/sched"
	"calq/sms/at"
	"calq/sms/store"
)

// Pool is the modems this process holds, each opened with Dial. A modem
// that did not answer, or whose device vanished, is broken: its backend's
// health check dials it again (redial), which replaces its Conn. Close
// closes whatever is open then.
type Pool struct {
	mu     sync.Mutex
	specs  []ModemSpec
	conns  []*Conn // nil where a modem is closed
	broken []bool  // to be dialled again
	atOpt  at.Options
	watch  func(*Conn, string) // see watchURC; nil while nobody watches
	fwd    sync.WaitGroup      // the goroutines that call watch
}

// OpenPool dials every modem at once. It returns the pool, which holds
// every modem of specs, and the errors of those that did not answer
// (joined); those stay broken until a redial succeeds. The pool is never
// nil; the caller closes it.
func OpenPool(ctx context.Context, specs []ModemSpec, o at.Options) (*Pool, error) {
	p := &Pool{specs: specs, conns: make([]*Conn, len(specs)), broken: make([]bool, len(specs)), atOpt: o}
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Go(func() { p.conns[i], errs[i] = Dial(ctx, s, o) })
	}
	wg.Wait()
	for i, c := range p.conns {
		p.broken[i] = c == nil
	}
	return p, errors.Join(errs...)
}

// Len is the number of modems in the pool, open or not.
func (p *Pool) Len() int { return len(p.specs) }

// Conns returns the open modems.
func (p *Pool) Conns() []*Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*Conn
	for i, c := range p.conns {
		if c != nil && !p.broken[i] {
			out = append(out, c)
		}
	}
	return out
}

// conn is modem i's Conn; nil while it is broken.
func (p *Pool) conn(i int) *Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken[i] {
		return nil
	}
	return p.conns[i]
}

// markBroken has modem i dialled again by its next health check.
func (p *Pool) markBroken(i int) {
	p.mu.Lock()
	p.broken[i] = true
	p.mu.Unlock()
}

// redial dials modem i again if it is broken; nil when it is open.
func (p *Pool) redial(ctx context.Context, i int) error {
	p.mu.Lock()
	if !p.broken[i] {
		p.mu.Unlock()
		return nil
	}
	old, spec := p.conns[i], p.specs[i]
	p.conns[i] = nil
	p.mu.Unlock()
	if old != nil {
		old.Close()
	}
	c, err := Dial(ctx, spec, p.atOpt)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.conns[i], p.broken[i] = c, false
	p.forward(c)
	p.mu.Unlock()
	return nil
}

// watchURC has fn called with every unsolicited line (see at.Modem.URC)
// of the pool's open modems, and of each modem a redial opens later, on
// one goroutine per modem until the modem is closed. fn must return
// soon: the modem's lines wait meanwhile.
func (p *Pool) watchURC(fn func(c *Conn, line string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watch = fn
	for i, c := range p.conns {
		if c != nil && !p.broken[i] {
			p.forward(c)
		}
	}
}

// forward starts c's watcher, if there is a watch; p.mu is held. It
// ends when c's reader stops (c closed, or its device gone).
func (p *Pool) forward(c *Conn) {
	fn := p.watch
	if fn == nil {
		return
	}
	p.fwd.Go(func() {
		for line := range c.Modem.URC() {
			fn(c, line)
		}
	})
}

// Close closes every modem of the pool and waits for their watchers.
func (p *Pool) Close() error {
	p.mu.Lock()
	var errs []error
	for i, c := range p.conns {
		if c != nil {
			errs = append(errs, c.Close())
			p.conns[i] = nil
		}
	}
	p.mu.Unlock()
	p.fwd.Wait()
	return errors.Join(errs...)
}

// modemWorker is the one worker of a modem's backend: it sends the parts
// of a message still pending, waiting for its rate limit before each.
type modemWorker struct {
	name     string
	box      Outbox
	allowDup bool
	limit    *bucket

	pool *Pool
	i    int // the modem's index in pool
}

// errUnknown is the permanent failure of a message whose PDU went out
// without an answer, when duplicates are not allowed.
var errUnknown = errors.New("outcome unknown")

// Run sends what is pending of the message in j.Payload.
func (w *modemWorker) Run(ctx context.Context, j *sched.Job) error {
	id, err := strconv.ParseInt(string(j.Payload), 10, 64)
	if err != nil {
		return sched.Permanent(fmt.Errorf("bad sms payload %q", j.Payload))
	}
	m, err := w.box.SMS(ctx, id)
	if err != nil {
		return err
	}
	if m.State != store.SMSQueued {
		return nil // settled meanwhile (another process, or a recovered job)
	}
	skipped := false
	for _, p := range m.Parts {
		switch {
		case p.State == store.SMSAccepted:
			continue
		case p.State == store.SMSSending && !w.allowDup:
			// An earlier run died between writing this part and the
			// modem's answer: it may have gone out.
			rctx := context.WithoutCancel(ctx)
			return sched.Permanent(errors.Join(fmt.Errorf("%w: part %d: calq stopped after writing it, before the modem answered", errUnknown, p.Seq),
				w.box.SMSPartFailed(rctx, id, p.Seq, store.SMSUnknown, p.Modem,
					"unknown: calq stopped after writing the part, before the modem answered")))
		case p.State == store.SMSUnknown && !w.allowDup:
			skipped = true // an earlier run allowed duplicates; this one does not
			continue
		}
		if err := w.sendPart(ctx, j, id, p); err != nil {
			return err
		}
	}
	if skipped {
		// Every other part is accepted now: the message ends unknown.
		_, err := w.box.SettleSMS(context.WithoutCancel(ctx), id)
		return err
	}
	return nil
}

// sendPart sends one part and records its outcome before returning.
func (w *modemWorker) sendPart(ctx context.Context, j *sched.Job, id int64, p store.SMSPart) error {
	if err := w.limit.wait(ctx); err != nil {
		return err
	}
	c := w.pool.conn(w.i)
	if c == nil {
		return fmt.Errorf("modem %s: %w", w.name, at.ErrClosed)
	}
	// Recorded first, so that a crash while the modem has the PDU leaves
	// the part unknown rather than pending (sent again by the next run).
	if err := w.box.SMSPartSending(ctx, id, p.Seq, w.name); err != nil {
		if errors.Is(err, store.ErrClaimLost) {
			return sched.Permanent(err) // the message is another daemon's now
		}
		if errors.Is(err, store.ErrNotQueued) {
			return nil // cancelled since it was read: nothing went out
		}
		return err
	}
	mr, err := c.Modem.SendPDU(ctx, p.Hex, p.TPDULength)
	if err == nil && mr < 0 {
		// A bare OK, with no +CMGS reference: it may be a stale answer
		// (seen as a modem vanished), so acceptance is not known.
		err = fmt.Errorf("%w: OK without a message reference", at.ErrUnknownOutcome)
	}
	// Record with a context of its own: a cancelled attempt must still
	// record what the modem said.
	rctx := context.WithoutCancel(ctx)
	switch {
	case err == nil:
		j.Backend = w.name // the other parts follow this one
		_, err := w.box.SMSPartAccepted(rctx, id, p.Seq, w.name, mr)
		return err
	case errors.Is(err, at.ErrUnknownOutcome):
		w.noteBroken(err)
		j.Backend = w.name
		if w.allowDup {
			return errors.Join(err, w.box.SMSPartUnknownRetry(rctx, id, p.Seq, w.name, err.Error()))
		}
		return sched.Permanent(errors.Join(fmt.Errorf("%w: %w", errUnknown, err),
			w.box.SMSPartFailed(rctx, id, p.Seq, store.SMSUnknown, w.name, "unknown: "+err.Error())))
	case at.IsTransient(err) || ctx.Err() != nil:
		// Nothing was written (a written PDU without an answer is
		// ErrUnknownOutcome, above): the part may go again.
		w.noteBroken(err)
		return errors.Join(err, w.box.SMSPartPending(rctx, id, p.Seq))
	default:
		return sched.Permanent(errors.Join(err, w.box.SMSPartFailed(rctx, id, p.Seq, store.SMSFailed, w.name, err.Error())))
	}
}

func (w *modemWorker) noteBroken(err error) {
	if errors.Is(err, at.ErrClosed) {
		w.pool.markBroken(w.i)
	}
}

// health is the backend's health check: a modem that did not answer or
// whose device vanished is dialled again; while that fails the engine
// keeps the backend down and its queue goes to the other modems.
func (w *modemWorker) health(ctx context.Context) error { return w.pool.redial(ctx, w.i) }

// bucket is a token bucket of capacity one: at most one part per
// interval. A nil bucket does not limit.
type bucket struct {
	interval time.Duration
	next     time.Time
}

func newBucket(perMinute float64) *bucket {
	if perMinute <= 0 {
		return nil
	}
	return &bucket{interval: time.Duration(float64(time.Minute) / perMinute)}
}

// wait blocks until the next part may go; only the modem's one worker calls it.
func (b *bucket) wait(ctx context.Context) error {
	if b == nil {
		return nil
	}
	now := time.Now()
	if d := b.next.Sub(now); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		now = b.next
	}
	b.next = now.Add(b.interval)
	return nil
}

// ModemStatus is what `calq sms modems` shows of one modem.
type ModemStatus struct {
	Name         string `json:"name"`
	Device       string `json:"device"`
	State        string `json:"state"` // ModemReady, ModemPINRejected or ModemError
	Maker        string `json:"maker,omitempty"`
	Model        string `json:"model,omitempty"`
	IMEI         string `json:"imei,omitempty"`
	Registered   bool   `json:"registered"`
	Registration string `json:"registration,omitempty"`
	Signal       int    `json:"signal"` // AT+CSQ rssi: 0-31, 99 unknown, -1 not asked
	SMSC         string `json:"smsc,omitempty"`
	Err          error  `json:"-"`
	Error        string `json:"error,omitempty"`
	// Breaker is what a daemon's circuit breaker makes of the modem (one
	// of BreakerClosed, BreakerOpen, BreakerDown, BreakerFailing), since
	// BreakerSince; empty where no daemon holds the modem.
	Breaker      string    `json:"breaker,omitempty"`
	BreakerSince time.Time `json:"breaker_since,omitzero"`
}

// The states of a daemon's circuit breaker in ModemStatus.Breaker.
const (
	BreakerClosed  = "closed"  // the modem takes messages
	BreakerOpen    = "open"    // taken out after FailLimit failures in a row, until its cooldown ends
	BreakerDown    = "down"    // its health check failed (it vanished); dialled again every HealthEvery
	BreakerFailing = "failing" // FailLimit failures in a row, but kept in: no other modem sends
)

// The states of a modem in ModemStatus.
const (
	ModemReady       = "ready"
	ModemPINRejected = "pin rejected" // its SIM refused the PIN, now or before (ErrPINRejected)
	ModemError       = "error"
)

var errNoSuchModem = errors.New("no modem named")

// SurveyOptions are the options of Survey.
type SurveyOptions struct {
	AT at.Options
	// PINs remembers the PINs a SIM refused (ModemSpec.PINs); nil
	// remembers none.
	PINs PINStore
	// RetryPIN names a modem whose SIM gets its PIN once more, even one
	// it refused before (never its last try).
	RetryPIN string
}

// Survey opens every modem at once, reads what Init learnt of it and
// closes it again. Its error is for a RetryPIN that names no modem.
func Survey(ctx context.Context, specs []ModemSpec, o SurveyOptions) ([]ModemStatus, error) {
	specs = withPINs(specs, o.PINs)
	if o.RetryPIN != "" {
		i := slices.IndexFunc(specs, func(s ModemSpec) bool { return s.Name == o.RetryPIN })
		if i < 0 {
			return nil, &usageError{fmt.Errorf("--retry-pin: %w %q", errNoSuchModem, o.RetryPIN)}
		}
		specs[i].RetryPIN = true
	}
	out := make([]ModemStatus, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Go(func() { out[i] = survey(ctx, s, o.AT) })
	}
	wg.Wait()
	return out, nil
}

func survey(ctx context.Context, s ModemSpec, o at.Options) ModemStatus {
	st := ModemStatus{Name: s.Name, Device: s.Device, State: ModemReady, Signal: -1}
	c, err := Dial(ctx, s, o)
	if err != nil {
		st.State, st.Err, st.Error = ModemError, err, err.Error()
		if errors.Is(err, ErrPINRejected) {
			st.State = ModemPINRejected
		}
		return st
	}
	defer c.Close()
	in := c.Info
	st.Maker, st.Model, st.IMEI, st.Registered, st.Registration = in.Maker, in.Model, in.IMEI, in.Registered, in.RegStatus
	st.Signal, st.SMSC = in.Signal, in.SMSC
	return st
}
