package store

import (
	"calq/internal/bytestr"
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// The outbox of Mem: Store's rules in memory (outbox.go).

// AddSMS implements Store.AddSMS.
func (m *Mem) AddSMS(_ context.Context, msgs []SMSMessage) ([]int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := stored(m.now())
	ids := make([]int64, len(msgs))
	for i, in := range msgs {
		msg := SMSMessage{ID: int64(len(m.msgs) + 1), Created: now, To: in.To, Text: in.Text, Options: cmp.Or(in.Options, "{}"),
			NotBefore: stored(in.NotBefore), State: SMSQueued, Updated: now}
		for _, p := range in.Parts {
			msg.Parts = append(msg.Parts, SMSPart{Seq: p.Seq, Total: p.Total, Ref: p.Ref, Hex: p.Hex, TPDULength: p.TPDULength,
				State: SMSPending, MR: -1, Updated: now})
		}
		m.msgs = append(m.msgs, &msg)
		ids[i] = msg.ID
	}
	return ids, nil
}

func (m *Mem) msg(id int64) *SMSMessage {
	if id < 1 || id > int64(len(m.msgs)) {
		return nil
	}
	return m.msgs[id-1]
}

// part is part seq of message id, or nil.
func (m *Mem) part(id int64, seq int) *SMSPart {
	if msg := m.msg(id); msg != nil {
		for i := range msg.Parts {
			if msg.Parts[i].Seq == seq {
				return &msg.Parts[i]
			}
		}
	}
	return nil
}

// SMSPartAccepted implements Store.SMSPartAccepted.
func (m *Mem) SMSPartAccepted(_ context.Context, id int64, seq int, modem string, mr int) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := stored(m.now())
	if p := m.part(id, seq); p != nil {
		p.State, p.MR, p.Modem, p.Reason, p.Updated = SMSAccepted, mr, modem, "", now
	}
	return m.settle(id, modem, now), nil
}

// settle is settleSMS's rule.
func (m *Mem) settle(id int64, modem string, now time.Time) bool {
	msg := m.msg(id)
	if msg == nil || msg.State != SMSQueued {
		return false
	}
	open := slices.ContainsFunc(msg.Parts, func(p SMSPart) bool { return p.State == SMSPending || p.State == SMSSending })
	if open {
		return false
	}
	msg.State, msg.Reason = SMSSent, ""
	if slices.ContainsFunc(msg.Parts, func(p SMSPart) bool { return p.State != SMSAccepted }) {
		msg.State, msg.Reason = SMSUnknown, "unknown: some parts went out without an answer"
	}
	msg.Modem, msg.Updated = cmp.Or(modem, msg.Modem), now
	return true
}

// SettleSMS implements Store.SettleSMS.
func (m *Mem) SettleSMS(_ context.Context, id int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.settle(id, "", stored(m.now())), nil
}

// SMSPartSending implements Store.SMSPartSending.
func (m *Mem) SMSPartSending(_ context.Context, id int64, seq int, modem string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if msg := m.msg(id); msg != nil && msg.State != SMSQueued {
		return fmt.Errorf("sms %d part %d sending: %w", id, seq, ErrNotQueued)
	}
	m.setPartStateLocked(id, seq, SMSSending, modem)
	return nil
}

// SMSPartPending implements Store.SMSPartPending.
func (m *Mem) SMSPartPending(_ context.Context, id int64, seq int) error {
	m.setPartState(id, seq, SMSPending, "")
	return nil
}

func (m *Mem) setPartState(id int64, seq int, state, modem string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setPartStateLocked(id, seq, state, modem)
}

func (m *Mem) setPartStateLocked(id int64, seq int, state, modem string) {
	p := m.part(id, seq)
	if p != nil && (p.State == SMSPending || p.State == SMSSending || p.State == SMSUnknown) {
		p.State, p.Modem, p.Updated = state, cmp.Or(modem, p.Modem), stored(m.now())
	}
}

// SMSPartFailed implements Store.SMSPartFailed.
func (m *Mem) SMSPartFailed(_ context.Context, id int64, seq int, state, modem, reason string) error {
	if state != SMSFailed && state != SMSUnknown {
		return fmt.Errorf("sms %d part %d: state %q: want failed or unknown", id, seq, state)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := stored(m.now())
	if p := m.part(id, seq); p != nil {
		p.State, p.Modem, p.Reason, p.Updated = state, modem, bytestr.Text(reason), now
	}
	if msg := m.msg(id); msg != nil && msg.State == SMSQueued {
		msg.State, msg.Modem, msg.Reason, msg.Updated = state, modem, bytestr.Text(reason), now
	}
	return nil
}

// SMSPartUnknownRetry implements Store.SMSPartUnknownRetry.
func (m *Mem) SMSPartUnknownRetry(_ context.Context, id int64, seq int, modem, reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.part(id, seq); p != nil {
		p.State, p.Modem, p.Reason, p.Updated = SMSUnknown, modem, bytestr.Text(reason), stored(m.now())
	}
	return nil
}

// FinishSMS implements Store.FinishSMS.
func (m *Mem) FinishSMS(_ context.Context, id int64, state, reason string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	msg := m.msg(id)
	if msg == nil || msg.State != SMSQueued {
		return false, nil
	}
	msg.State, msg.Reason, msg.Updated = state, bytestr.Text(reason), stored(m.now())
	return true, nil
}

// SMS implements Store.SMS.
func (m *Mem) SMS(_ context.Context, id int64) (SMSMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	msg := m.msg(id)
	if msg == nil {
		return SMSMessage{}, fmt.Errorf("sms %d: %w", id, ErrNoSMS)
	}
	return copyMessage(msg), nil
}

func copyMessage(msg *SMSMessage) SMSMessage {
	c := *msg
	c.Parts = slices.Clone(msg.Parts)
	return c
}

// ListSMS implements Store.ListSMS.
func (m *Mem) ListSMS(_ context.Context, f SMSFilter) ([]SMSMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	due := stored(f.DueUntil)
	var ms []SMSMessage
	for _, msg := range m.msgs {
		if (f.State == "" || msg.State == f.State) && (due.IsZero() || msg.NotBefore.IsZero() || !msg.NotBefore.After(due)) {
			ms = append(ms, copyMessage(msg))
		}
	}
	if f.Limit > 0 && len(ms) > f.Limit {
		ms = ms[len(ms)-f.Limit:]
	}
	return ms, nil
}
