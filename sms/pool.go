package sms

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"calq/sched"
	"calq/sched/journal"
	"calq/sms/at"
)

// Pool is the modems this process holds, each opened with Dial. A
// modem whose device vanished is dialled again by its backend's health
// check, which replaces its Conn; Close closes whatever is open then.
type Pool struct {
	mu    sync.Mutex
	conns []*Conn // nil where a modem is closed
	specs []ModemSpec
	atOpt at.Options
}

// OpenPool dials every modem at once. It returns the pool of those that
// answered and the errors of the others (joined); the pool is nil only
// when none answered.
func OpenPool(ctx context.Context, specs []ModemSpec, o at.Options) (*Pool, error) {
	conns := make([]*Conn, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Go(func() { conns[i], errs[i] = Dial(ctx, s, o) })
	}
	wg.Wait()
	p := &Pool{atOpt: o}
	for i, c := range conns {
		if c != nil {
			p.conns = append(p.conns, c)
			p.specs = append(p.specs, specs[i])
		}
	}
	err := errors.Join(errs...)
	if len(p.conns) == 0 {
		return nil, fmt.Errorf("no modem answered: %w", err)
	}
	return p, err
}

// Conns returns the open modems.
func (p *Pool) Conns() []*Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*Conn
	for _, c := range p.conns {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// Close closes every modem of the pool.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for i, c := range p.conns {
		if c != nil {
			errs = append(errs, c.Close())
			p.conns[i] = nil
		}
	}
	return errors.Join(errs...)
}

// modemWorker is the one worker of a modem's backend: it sends the parts
// of a message still pending, waiting for its rate limit before each.
type modemWorker struct {
	name     string
	jn       *journal.Journal
	allowDup bool
	limit    *bucket
	atTime   *time.Duration // time spent in SendPDU, for the bench; guarded by the single worker

	pool   *Pool
	i      int  // the modem's index in pool
	broken bool // the device vanished: health redials it; guarded by pool.mu
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
	m, err := w.jn.SMS(ctx, id)
	if err != nil {
		return err
	}
	if m.State != journal.SMSQueued {
		return nil // settled meanwhile (another process, or a recovered job)
	}
	for _, p := range m.Parts {
		if p.State == journal.SMSAccepted || (p.State == journal.SMSUnknown && !w.allowDup) {
			continue
		}
		if err := w.sendPart(ctx, j, id, p); err != nil {
			return err
		}
	}
	return nil
}

// sendPart sends one part and records its outcome before returning.
func (w *modemWorker) sendPart(ctx context.Context, j *sched.Job, id int64, p journal.SMSPart) error {
	if err := w.limit.wait(ctx); err != nil {
		return err
	}
	c := w.current()
	if c == nil {
		return fmt.Errorf("modem %s: %w", w.name, at.ErrClosed)
	}
	start := time.Now()
	mr, err := c.Modem.SendPDU(ctx, p.Hex, p.TPDULen)
	*w.atTime += time.Since(start)
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
		_, err := w.jn.SMSPartAccepted(rctx, id, p.Seq, w.name, mr)
		return err
	case errors.Is(err, at.ErrUnknownOutcome):
		w.noteBroken(err)
		j.Backend = w.name
		if w.allowDup {
			return errors.Join(err, w.jn.SMSPartUnknownRetry(rctx, id, p.Seq, w.name, err.Error()))
		}
		return sched.Permanent(errors.Join(fmt.Errorf("%w: %w", errUnknown, err),
			w.jn.SMSPartFailed(rctx, id, p.Seq, journal.SMSUnknown, w.name, "unknown: "+err.Error())))
	case at.IsTransient(err) || ctx.Err() != nil:
		w.noteBroken(err)
		return err
	default:
		return sched.Permanent(errors.Join(err, w.jn.SMSPartFailed(rctx, id, p.Seq, journal.SMSFailed, w.name, err.Error())))
	}
}

func (w *modemWorker) current() *Conn {
	w.pool.mu.Lock()
	defer w.pool.mu.Unlock()
	if w.broken {
		return nil
	}
	return w.pool.conns[w.i]
}

func (w *modemWorker) noteBroken(err error) {
	if errors.Is(err, at.ErrClosed) {
		w.pool.mu.Lock()
		w.broken = true
		w.pool.mu.Unlock()
	}
}

// health is the backend's health check: a modem whose device vanished is
// dialled again; while that fails the engine keeps the backend down and
// its queue goes to the other modems (the circuit breaker's open state).
func (w *modemWorker) health(ctx context.Context) error {
	p := w.pool
	p.mu.Lock()
	if !w.broken {
		p.mu.Unlock()
		return nil
	}
	old, spec := p.conns[w.i], p.specs[w.i]
	p.conns[w.i] = nil
	p.mu.Unlock()
	if old != nil {
		old.Close()
	}
	c, err := Dial(ctx, spec, p.atOpt)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.conns[w.i], w.broken = c, false
	p.mu.Unlock()
	return nil
}

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
	Maker        string `json:"maker,omitempty"`
	Model        string `json:"model,omitempty"`
	IMEI         string `json:"imei,omitempty"`
	Registered   bool   `json:"registered"`
	Registration string `json:"registration,omitempty"`
	Signal       int    `json:"signal"` // AT+CSQ rssi: 0-31, 99 unknown, -1 not asked
	SMSC         string `json:"smsc,omitempty"`
	Err          error  `json:"-"`
	Error        string `json:"error,omitempty"`
}

// Survey opens every modem at once, reads what Init learnt of it and
// closes it again.
func Survey(ctx context.Context, specs []ModemSpec, o at.Options) []ModemStatus {
	out := make([]ModemStatus, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Go(func() {
			st := ModemStatus{Name: s.Name, Device: s.Device, Signal: -1}
			c, err := Dial(ctx, s, o)
			if err != nil {
				st.Err, st.Error = err, err.Error()
				out[i] = st
				return
			}
			defer c.Close()
			in := c.Info
			st.Maker, st.Model, st.IMEI, st.Registered, st.Registration = in.Maker, in.Model, in.IMEI, in.Registered, in.RegStatus
			st.Signal, st.SMSC = in.Signal, in.SMSC
			out[i] = st
		})
	}
	wg.Wait()
	return out
}
