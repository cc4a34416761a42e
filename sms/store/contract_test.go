package store

import (
	"context"
	"testing"
	"time"

	"calq/internal/pgtest"
)

// contract is every method of the store: the contract tests run against
// each implementation, *Store on SQLite and *Mem, so that a test of
// package sms on the fake means what it would on the file.
type contract interface {
	AddSMS(ctx context.Context, msgs []SMSMessage) ([]int64, error)
	SMS(ctx context.Context, id int64) (SMSMessage, error)
	ListSMS(ctx context.Context, f SMSFilter) ([]SMSMessage, error)
	SMSPartSending(ctx context.Context, id int64, seq int, modem string) error
	SMSPartPending(ctx context.Context, id int64, seq int) error
	SMSPartAccepted(ctx context.Context, id int64, seq int, modem string, mr int) (bool, error)
	SMSPartFailed(ctx context.Context, id int64, seq int, state, modem, reason string) error
	SMSPartUnknownRetry(ctx context.Context, id int64, seq int, modem, reason string) error
	SettleSMS(ctx context.Context, id int64) (bool, error)
	FinishSMS(ctx context.Context, id int64, state, reason string) (bool, error)
	CancelSMS(ctx context.Context, id int64) (bool, error)

	RecordInboxPDUs(ctx context.Context, modem string, listed []InboxSlot, at time.Time) ([]InboxPDU, error)
	MarkInboxDeleted(ctx context.Context, id int64, at time.Time) error
	UnfiledInboxPDUs(ctx context.Context) ([]InboxPDU, error)
	SetInboxPDUState(ctx context.Context, id int64, state, reason string) error
	HoldInboxPart(ctx context.Context, p InboxPart) error
	InboxParts(ctx context.Context) ([]InboxPart, error)
	AddInboxEntry(ctx context.Context, e InboxEntry, pduIDs []int64) (int64, error)
	NewInboxEntries(ctx context.Context) ([]InboxEntry, error)
	InboxEntries(ctx context.Context, f InboxFilter) ([]InboxEntry, error)
	MarkInboxDelivered(ctx context.Context, id int64, at time.Time) error
	MatchReport(ctx context.Context, modem string, mr int, ra string, since time.Time) (InboxEntry, bool, error)

	PINRejection(ctx context.Context, sim string) (PINRejection, bool, error)
	RecordPINRejection(ctx context.Context, r PINRejection) error
	ClearPINRejection(ctx context.Context, sim string) error

	Counts(ctx context.Context) (Counts, error)
}

var (
	_ contract = (*Store)(nil)
	_ contract = (*Mem)(nil)
)

// openPG opens a Store on a new PostgreSQL server on clock c.
func openPG(t testing.TB, c *clock) *Store {
	t.Helper()
	srv := pgtest.Start(t)
	ctx := context.Background()
	pg, err := OpenPG(ctx, srv.URL, PGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	pg.now = c.Now
	s, err := Open(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eachStore runs test against a Store in a new journal file and against
// a Mem, each on a clock of its own at t0.
func eachStore(t *testing.T, test func(t *testing.T, s contract, clk *clock)) {
	t.Run("sqlite", func(t *testing.T) {
		clk := newClock()
		test(t, openTemp(t, clk).Store, clk)
	})
	t.Run("mem", func(t *testing.T) {
		clk := newClock()
		test(t, NewMem(clk.Now), clk)
	})
	t.Run("postgres", func(t *testing.T) {
		clk := newClock()
		test(t, openPG(t, clk), clk)
	})
}

func part(seq, total int) SMSPart { return SMSPart{Seq: seq, Total: total, Hex: "00", TPDULength: 1} }

func addOne(t *testing.T, s contract, m SMSMessage) int64 {
	t.Helper()
	ids, err := s.AddSMS(context.Background(), []SMSMessage{m})
	if err != nil || len(ids) != 1 {
		t.Fatalf("AddSMS = %v, %v", ids, err)
	}
	return ids[0]
}

func getSMS(t *testing.T, s contract, id int64) SMSMessage {
	t.Helper()
	m, err := s.SMS(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPINRejections: a rejection is kept per SIM, stamped with the clock
// when it has no time, and cleared.
func TestPINRejections(t *testing.T) { eachStore(t, testPINRejections) }

func testPINRejections(t *testing.T, s contract, _ *clock) {
	ctx := context.Background()
	if r, found, err := s.PINRejection(ctx, "iccid:89"); err != nil || found || r.SIM != "iccid:89" {
		t.Fatalf("PINRejection of a new SIM = %+v, %v, %v", r, found, err)
	}
	must(t, s.RecordPINRejection(ctx, PINRejection{SIM: "iccid:89", Modem: "m0", Salt: []byte{1}, Fingerprint: []byte{2},
		Reason: "+CME ERROR: 16"}))
	r, found, err := s.PINRejection(ctx, "iccid:89")
	if err != nil || !found || r.Modem != "m0" || string(r.Fingerprint) != "\x02" || !r.Rejected.Equal(t0) {
		t.Errorf("PINRejection = %+v, %v, %v; want m0's at t0", r, found, err)
	}
	must(t, s.ClearPINRejection(ctx, "iccid:89"))
	if _, found, err := s.PINRejection(ctx, "iccid:89"); err != nil || found {
		t.Errorf("after clearing: found %v, %v", found, err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
