package sms

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"calq/sched/journal"
	"calq/sms/at"
	"calq/sms/store"
)

// recvFakeModem is a SIM memory that can stop a run at AT+CMGD, as a
// crash or a kill there would.
type recvFakeModem struct {
	slots   map[int]string
	cancel  context.CancelFunc // called by Delete, which then fails, when set
	deletes []int
}

func (m *recvFakeModem) List(context.Context) ([]at.Stored, error) {
	var out []at.Stored
	for i, p := range m.slots {
		out = append(out, at.Stored{Index: i, Stat: 0, PDU: p})
	}
	slices.SortFunc(out, func(a, b at.Stored) int { return a.Index - b.Index })
	return out, nil
}

func (m *recvFakeModem) Delete(ctx context.Context, i int) error {
	if m.cancel != nil {
		m.cancel()
		return ctx.Err()
	}
	m.deletes = append(m.deletes, i)
	delete(m.slots, i)
	return nil
}

// TestReceiveCrashBeforeDelete: a run stopped after recording the PDUs
// but before AT+CMGD has them in the journal; the next run, which lists
// them again, files each once, and deletes them. The stopped run's
// journal is closed and reopened, as a new process would.
func TestReceiveCrashBeforeDelete(t *testing.T) {
	parts := recvDeliver(t, "+491709876543", recvLong, 5)
	m := &recvFakeModem{slots: map[int]string{1: parts[0], 2: parts[1], 3: parts[2],
		4: recvDeliver(t, "+4911", "short", 0)[0]}}
	path := filepath.Join(t.TempDir(), "calq.db")

	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	j := recvOpen(t, path)
	err := recvPoll(ctx, "m0", m, j, RecvOptions{}.withDefaults(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: error %v, want context.Canceled", err)
	}
	ps, err := j.UnfiledInboxPDUs(context.Background())
	if err != nil || len(ps) != 4 {
		t.Fatalf("journal after the stopped run holds %d unfiled PDUs (%v), want 4", len(ps), err)
	}
	j.Close()

	m.cancel = nil
	j = recvOpen(t, path)
	got, err := Receive(context.Background(), nil, j, RecvOptions{}) // the journal alone
	if err != nil {
		t.Fatal(err)
	}
	recvCheck(t, "journal-only run", got, []string{
		"message +4911 1/1 missing= short",
		"message +491709876543 3/3 missing= " + recvLong,
	})
	got, err = recvReceiveFake(j, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("run listing the same PDUs again handed out %q, want nothing (no duplicates)", recvSummary(got))
	}
	if len(m.slots) != 0 || !slices.Equal(m.deletes, []int{1, 2, 3, 4}) {
		t.Errorf("modem left with %v after deleting %v, want empty after 1 2 3 4", m.slots, m.deletes)
	}
	// The same slot reused for a new message is a new message.
	m.slots[1] = recvDeliver(t, "+4911", "short", 0)[0]
	got, err = recvReceiveFake(j, m)
	if err != nil {
		t.Fatal(err)
	}
	recvCheck(t, "identical PDU after deletion", got, []string{"message +4911 1/1 missing= short"})
}

// recvReceiveFake is Receive with m as its only modem.
func recvReceiveFake(j Inbox, m *recvFakeModem) ([]Inbound, error) {
	ctx := context.Background()
	o := RecvOptions{}.withDefaults()
	if err := recvPoll(ctx, "m0", m, j, o, nil); err != nil {
		return nil, err
	}
	return Receive(ctx, nil, j, o)
}

// recvOpen opens the journal at path and the inbox in it, as a process
// does; closing the journal ends the process's hold on it.
func recvOpen(t *testing.T, path string) recvJournal {
	t.Helper()
	j, err := journal.Open(context.Background(), path, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	st, err := store.Open(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	return recvJournal{st, j}
}

type recvJournal struct {
	*store.Store
	jn *journal.Journal
}

func (r recvJournal) Close() error { return r.jn.Close() }
