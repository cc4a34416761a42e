package store

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Mem is the outbox, the inbox and the PIN rejections in memory, for
// tests of package sms that need no file: it keeps Store's rules (the
// contract tests run against both) but nothing survives it. It is safe
// for concurrent use.
type Mem struct {
	mu      sync.Mutex
	now     func() time.Time
	msgs    []*SMSMessage // by id
	pdus    []*memPDU     // by id
	entries []*InboxEntry // by id
	pins    map[string]PINRejection
}

// memPDU is a row of sms_inbox_pdus.
type memPDU struct {
	InboxPDU
	part InboxPart // when State is "part"
}

// NewMem returns an empty Mem on the clock now (time.Now when nil).
func NewMem(now func() time.Time) *Mem {
	if now == nil {
		now = time.Now
	}
	return &Mem{now: now, pins: map[string]PINRejection{}}
}

// stored is t as a time column gives it back: UTC, to the microsecond.
func stored(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

// storedRFC3339 is t as an RFC 3339 column gives it back: to the second,
// in its own zone.
func storedRFC3339(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	back, _ := time.Parse(time.RFC3339, t.Format(time.RFC3339))
	return back
}

// PINRejection implements Store.PINRejection.
func (m *Mem) PINRejection(_ context.Context, sim string) (PINRejection, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.pins[sim]
	if !ok {
		return PINRejection{SIM: sim}, false, nil
	}
	return r, true, nil
}

// RecordPINRejection implements Store.RecordPINRejection.
func (m *Mem) RecordPINRejection(_ context.Context, r PINRejection) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Rejected.IsZero() {
		r.Rejected = m.now()
	}
	r.Rejected = stored(r.Rejected)
	r.Salt, r.Fingerprint = slices.Clone(r.Salt), slices.Clone(r.Fingerprint)
	m.pins[r.SIM] = r
	return nil
}

// ClearPINRejection implements Store.ClearPINRejection.
func (m *Mem) ClearPINRejection(_ context.Context, sim string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.pins, sim)
	return nil
}
