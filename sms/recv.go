package sms

import (
	"context"
	"errors"
	"fmt"
	"time"

	"calq/internal/exitcode"
	"calq/sms/at"
	"calq/sms/store"
)

// DefaultReassemblyTimeout is how long the parts of a long message wait
// for the missing ones before they are delivered as they are, from when
// calq read the first of them. gammu waits 10 minutes; an hour leaves
// room for parts a busy network holds back.
const DefaultReassemblyTimeout = time.Hour

// RecvOptions are the choices of Receive. The zero value is ready to use.
type RecvOptions struct {
	// Keep leaves the journal's and the modems' state alone: no AT+CMGD,
	// and nothing is marked delivered, so the next Receive hands out the
	// same entries again. The raw PDUs are still recorded (once).
	Keep bool
	// ReassemblyTimeout: see DefaultReassemblyTimeout, used when zero.
	ReassemblyTimeout time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Handle, when set, is called with each new entry in turn, in the
	// order they were filed (a long message when it was complete); an entry for which it fails is not marked delivered, so the
	// next Receive hands it out again. The failure is in Receive's error.
	Handle func(context.Context, Inbound) error
	// Warn receives problems that stop nothing, such as an undecodable
	// PDU (kept in the journal as "bad"); they are dropped when nil.
	Warn func(error)
}

func (o RecvOptions) withDefaults() RecvOptions {
	if o.ReassemblyTimeout <= 0 {
		o.ReassemblyTimeout = DefaultReassemblyTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Warn == nil {
		o.Warn = func(error) {}
	}
	return o
}

// Receive polls each modem with AT+CMGL=4, records every received PDU
// raw in j and only then deletes it from the modem (AT+CMGD), files the
// PDUs (these and those an interrupted run left unfiled), reassembles long
// messages, and hands out the journal's entries not yet delivered
// (through o.Handle when set), marking them delivered unless o.Keep. It
// returns the entries handed out successfully; when some were and
// something failed, the error also wraps exitcode.ErrPartial.
//
// A modem that fails is reported in the error, joined with the others'
// failures, and the rest still runs: what was recorded is never lost. A
// stop between recording and AT+CMGD leaves the PDU on the modem; the next
// run finds it recorded in the same slot and neither loses nor duplicates
// it. Receive costs one AT+CMGL and one AT+CMGD per PDU per modem and a
// few journal writes per PDU; it must not run concurrently with itself on
// one journal.
func Receive(ctx context.Context, conns []*Conn, j Inbox, o RecvOptions) ([]Inbound, error) {
	return receive(ctx, conns, j, o, nil)
}

// receive is Receive with the PDUs that came directly (see pollAndFile).
func receive(ctx context.Context, conns []*Conn, j Inbox, o RecvOptions, direct map[string][]string) ([]Inbound, error) {
	o = o.withDefaults()
	errs, stop := pollAndFile(ctx, conns, j, o, direct)
	if stop {
		return nil, errors.Join(errs...)
	}
	out, err := recvHandOut(ctx, j, o)
	if errs = append(errs, err); len(out) > 0 && errors.Join(errs...) != nil {
		errs = append(errs, exitcode.ErrPartial)
	}
	return out, errors.Join(errs...)
}

// pollAndFile polls every modem (recvPoll), then files the recorded PDUs
// (these and those an interrupted run left unfiled) and reassembles long
// messages. A modem that fails is reported and the others still run; stop
// says that nothing more should be done (ctx ended, or filing failed).
// direct holds, by modem name, PDUs that came with +CDS or +CMT rather
// than in the modem's memory; those recorded are removed from it.
func pollAndFile(ctx context.Context, conns []*Conn, j Inbox, o RecvOptions, direct map[string][]string) (errs []error, stop bool) {
	for _, c := range conns {
		if err := recvPoll(ctx, c.Spec.Name, c.Modem, j, o, direct[c.Spec.Name]); err != nil {
			errs = append(errs, fmt.Errorf("modem %s: %w", c.Spec.Name, err))
			continue
		}
		delete(direct, c.Spec.Name)
	}
	if ctx.Err() != nil {
		return append(errs, ctx.Err()), true
	}
	if err := inboxFileAll(ctx, j, o.Now(), o.Warn); err != nil {
		return append(errs, fmt.Errorf("file received PDUs: %w", err)), true
	}
	if err := inboxAssemble(ctx, j, o.Now(), o.ReassemblyTimeout); err != nil {
		errs = append(errs, fmt.Errorf("reassemble long messages: %w", err))
	}
	return errs, false
}

// recvModem is what recvPoll needs of a modem: *at.Modem.
type recvModem interface {
	List(ctx context.Context) ([]at.Stored, error)
	Delete(ctx context.Context, index int) error
}

// recvPoll lists modem's received messages, records them with the PDUs
// that came directly (+CDS, +CMT) and deletes them. Messages stored to
// send (stat 2 and 3) are not ours to take: they stay.
func recvPoll(ctx context.Context, name string, m recvModem, j Inbox, o RecvOptions, direct []string) error {
	stored, err := m.List(ctx)
	if err != nil {
		return err
	}
	var listed []store.InboxSlot
	for _, s := range stored {
		if s.Stat == 0 || s.Stat == 1 {
			listed = append(listed, store.InboxSlot{Slot: s.Index, PDU: s.PDU})
		}
	}
	listed = withDirect(listed, direct)
	recorded, err := j.RecordInboxPDUs(ctx, name, listed, o.Now())
	if err != nil || o.Keep {
		return err
	}
	for _, p := range recorded {
		if p.Slot == DirectSlot { // in no memory: nothing to delete
			if err := j.MarkInboxDeleted(ctx, p.ID, o.Now()); err != nil {
				return err
			}
			continue
		}
		if err := m.Delete(ctx, p.Slot); err != nil {
			return fmt.Errorf("delete slot %d (recorded as PDU %d): %w", p.Slot, p.ID, err)
		}
		if err := j.MarkInboxDeleted(ctx, p.ID, o.Now()); err != nil {
			return err
		}
	}
	return nil
}

// recvHandOut hands out the entries not yet delivered.
func recvHandOut(ctx context.Context, j Inbox, o RecvOptions) ([]Inbound, error) {
	es, err := j.NewInboxEntries(ctx)
	if err != nil {
		return nil, err
	}
	var out []Inbound
	var errs []error
	for _, e := range es {
		in := inboxInbound(e)
		if o.Handle != nil {
			if err := o.Handle(ctx, in); err != nil {
				errs = append(errs, fmt.Errorf("%s %d: %w", in.Kind, in.ID, err))
				if ctx.Err() != nil {
					break
				}
				continue
			}
		}
		if !o.Keep {
			if err := j.MarkInboxDelivered(ctx, e.ID, o.Now()); err != nil {
				return out, errors.Join(append(errs, err)...)
			}
		}
		out = append(out, in)
	}
	return out, errors.Join(errs...)
}
