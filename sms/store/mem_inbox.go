package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The inbox of Mem: Store's rules in memory (inbox.go).

// RecordInboxPDUs implements Store.RecordInboxPDUs.
func (m *Mem) RecordInboxPDUs(_ context.Context, modem string, listed []InboxSlot, at time.Time) ([]InboxPDU, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	at = stored(at)
	held := map[InboxSlot]*memPDU{}
	for _, p := range m.pdus {
		if p.Modem == modem && p.OnModem {
			held[InboxSlot{p.Slot, p.PDU}] = p
		}
	}
	out := make([]InboxPDU, 0, len(listed))
	for _, l := range listed {
		k := InboxSlot{l.Slot, strings.ToUpper(l.PDU)}
		p, ok := held[k]
		if !ok {
			p = &memPDU{InboxPDU: InboxPDU{ID: int64(len(m.pdus) + 1), Modem: modem, Slot: k.Slot, PDU: k.PDU,
				Received: at, OnModem: true, State: "new"}}
			m.pdus = append(m.pdus, p)
		}
		delete(held, k)
		out = append(out, p.InboxPDU)
	}
	for _, gone := range held {
		gone.OnModem = false
	}
	return out, nil
}

func (m *Mem) pdu(id int64) *memPDU {
	if id < 1 || id > int64(len(m.pdus)) {
		return nil
	}
	return m.pdus[id-1]
}

// MarkInboxDeleted implements Store.MarkInboxDeleted.
func (m *Mem) MarkInboxDeleted(_ context.Context, id int64, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.pdu(id); p != nil {
		p.OnModem = false
	}
	return nil
}

// UnfiledInboxPDUs implements Store.UnfiledInboxPDUs.
func (m *Mem) UnfiledInboxPDUs(context.Context) ([]InboxPDU, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ps []InboxPDU
	for _, p := range m.pdus {
		if p.State == "new" {
			ps = append(ps, p.InboxPDU)
		}
	}
	return ps, nil
}

// SetInboxPDUState implements Store.SetInboxPDUState.
func (m *Mem) SetInboxPDUState(_ context.Context, id int64, state, _ string) error {
	if state != "bad" && state != "skipped" {
		return fmt.Errorf("file PDU %d: state %q is not bad or skipped", id, state)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.pdu(id); p != nil && p.State == "new" {
		p.State = state
	}
	return nil
}

// HoldInboxPart implements Store.HoldInboxPart.
func (m *Mem) HoldInboxPart(_ context.Context, part InboxPart) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.pdu(part.PDUID); p != nil && p.State == "new" {
		p.State = "part"
		p.part = InboxPart{PDUID: p.ID, Modem: p.Modem, Sender: part.Sender, Ref: part.Ref, Total: part.Total,
			Seq: part.Seq, Text: part.Text, SCTS: storedRFC3339(part.SCTS), Received: p.Received}
	}
	return nil
}

// InboxParts implements Store.InboxParts.
func (m *Mem) InboxParts(context.Context) ([]InboxPart, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ps []InboxPart
	for _, p := range m.pdus {
		if p.State == "part" {
			ps = append(ps, p.part)
		}
	}
	slices.SortStableFunc(ps, func(a, b InboxPart) int {
		return cmp.Or(cmp.Compare(a.Modem, b.Modem), cmp.Compare(a.Sender, b.Sender), cmp.Compare(a.Ref, b.Ref),
			cmp.Compare(a.Total, b.Total), cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.PDUID, b.PDUID))
	})
	return ps, nil
}

// AddInboxEntry implements Store.AddInboxEntry.
func (m *Mem) AddInboxEntry(_ context.Context, e InboxEntry, pduIDs []int64) (int64, error) {
	if e.Kind != KindMessage && e.Kind != KindReport {
		return 0, fmt.Errorf("add inbox entry: kind %q is not message or report", e.Kind)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range pduIDs {
		if p := m.pdu(id); p == nil || p.State != "new" && p.State != "part" {
			return 0, nil // filed meanwhile
		}
	}
	e.ID, e.Delivered = int64(len(m.entries)+1), time.Time{}
	e.SCTS, e.DT, e.Received = storedRFC3339(e.SCTS), storedRFC3339(e.DT), stored(e.Received)
	e.Parts, e.Total = max(e.Parts, 1), max(e.Total, 1)
	e.Missing = slices.Clone(e.Missing)
	if len(e.Missing) == 0 {
		e.Missing = nil
	}
	if e.Kind != KindReport {
		e.MR, e.ST = 0, 0
	}
	m.entries = append(m.entries, &e)
	for _, id := range pduIDs {
		m.pdu(id).State = "done"
	}
	return e.ID, nil
}

// NewInboxEntries implements Store.NewInboxEntries.
func (m *Mem) NewInboxEntries(context.Context) ([]InboxEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var es []InboxEntry
	for _, e := range m.entries {
		if e.Delivered.IsZero() {
			es = append(es, *e)
		}
	}
	return es, nil
}

// MarkInboxDelivered implements Store.MarkInboxDelivered.
func (m *Mem) MarkInboxDelivered(_ context.Context, id int64, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id >= 1 && id <= int64(len(m.entries)) {
		m.entries[id-1].Delivered = stored(at)
	}
	return nil
}

// MatchReport implements Store.MatchReport.
func (m *Mem) MatchReport(_ context.Context, modem string, mr int, ra string, since time.Time) (InboxEntry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	since = stored(since)
	var until time.Time // the next acceptance of mr on modem: its reports are that part's
	for _, msg := range m.msgs {
		for _, p := range msg.Parts {
			if p.Modem == modem && p.MR == mr && p.State == SMSAccepted && p.Updated.After(since) &&
				(until.IsZero() || p.Updated.Before(until)) {
				until = p.Updated
			}
		}
	}
	var es []*InboxEntry
	for _, e := range m.entries {
		if e.Kind == KindReport && e.Modem == modem && e.MR == mr && !e.Received.Before(since) &&
			(until.IsZero() || e.Received.Before(until)) {
			es = append(es, e)
		}
	}
	slices.SortStableFunc(es, func(a, b *InboxEntry) int {
		return cmp.Or(a.Received.Compare(b.Received), cmp.Compare(a.ID, b.ID))
	})
	for _, e := range es {
		if ra == "" || SameNumber(ra, e.Sender) {
			return *e, true, nil
		}
	}
	return InboxEntry{}, false, nil
}
