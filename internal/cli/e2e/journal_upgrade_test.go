package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"calq/convert"
	"calq/convert/contacts"
	"calq/sched/journal"
	"calq/sms/store"
)

// TestOldJournalOpens opens a journal written by calq before each package
// kept its own tables with versioned migrations (testdata/journal): the
// jobs, the address book, the outbox and the provenance of a PDF are all
// there and usable, and each package records its version once.
func TestOldJournalOpens(t *testing.T) {
	ctx := context.Background()
	b, err := os.ReadFile(filepath.Join(repoTestdata, "journal", "v1-6247342.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "calq.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for pass := range 2 { // the second open finds every version recorded
		jn, err := journal.Open(ctx, path, journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkOldJobs(t, jn)
		checkOldContacts(t, jn)
		checkOldOutbox(t, jn, pass == 0)
		checkOldConvert(t, jn)
		checkVersions(t, jn)
		if err := jn.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func checkOldJobs(t *testing.T, jn *journal.Journal) {
	t.Helper()
	recs, err := jn.List(context.Background(), journal.Filter{})
	if err != nil || len(recs) != 2 || !slices.ContainsFunc(recs, func(r journal.Record) bool { return r.Label == "old-batch" }) {
		t.Errorf("jobs = %+v, %v; want 2, one labelled old-batch", recs, err)
	}
}

func checkOldContacts(t *testing.T, jn *journal.Journal) {
	t.Helper()
	ctx := context.Background()
	book, err := contacts.Open(ctx, jn)
	if err != nil {
		t.Fatal(err)
	}
	to, err := book.ResolveRecipients(ctx, []string{"ops"})
	if err != nil || !slices.Equal(to, []string{"ops@example.com"}) {
		t.Errorf("ResolveRecipients(ops) = %v, %v", to, err)
	}
	// The old contacts are the local book's, no user's.
	if to, err := book.Owner("ann").ResolveRecipients(ctx, []string{"ops"}); err == nil {
		t.Errorf("user ann's book resolves the local contact ops: %v", to)
	}
}

// checkOldOutbox finds the message queued before the upgrade; on the
// first pass it sends it and files its status report, and on the second
// it finds it sent and the report matched.
func checkOldOutbox(t *testing.T, jn *journal.Journal, first bool) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, jn)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := st.ListSMS(ctx, store.SMSFilter{})
	if err != nil || len(ms) != 1 || ms[0].Text != "queued before the upgrade" || len(ms[0].Parts) != 1 {
		t.Fatalf("outbox = %+v, %v; want the one message queued before", ms, err)
	}
	m := ms[0]
	if first {
		if m.State != store.SMSQueued {
			t.Fatalf("old message is %s, want queued", m.State)
		}
		if done, err := st.SMSPartAccepted(ctx, m.ID, 1, "m0", 3); err != nil || !done {
			t.Fatalf("accepting its part: done %v, %v", done, err)
		}
		if m, err = st.SMS(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AddInboxEntry(ctx, store.InboxEntry{Kind: store.KindReport, Modem: "m0", Sender: m.To, MR: 3,
			Received: m.Parts[0].Updated.Add(time.Second)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if m.State != store.SMSSent {
		t.Errorf("old message is %s after sending, want sent", m.State)
	}
	if _, ok, err := st.MatchReport(ctx, "m0", 3, m.To, m.Parts[0].Updated); err != nil || !ok {
		t.Errorf("MatchReport after the upgrade: %v, %v", ok, err)
	}
}

func checkOldConvert(t *testing.T, jn *journal.Journal) {
	t.Helper()
	s, err := convert.OpenStore(context.Background(), jn)
	if err != nil {
		t.Fatal(err)
	}
	r, ok, err := s.Record(context.Background(), "/tmp/fx/out/testPNG.pdf")
	if err != nil || !ok || r.Input != "/tmp/fx/in/testPNG.png" || r.OutputSum == "" {
		t.Errorf("provenance of the old PDF = %+v, %v, %v", r, ok, err)
	}
}

func checkVersions(t *testing.T, jn *journal.Journal) {
	t.Helper()
	rows, err := jn.Query(context.Background(), `SELECT package, version FROM schema_versions ORDER BY package`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var pkg string
		var v int
		if err := rows.Scan(&pkg, &v); err != nil {
			t.Fatal(err)
		}
		got = append(got, pkg+"@"+string(rune('0'+v)))
	}
	// contacts@2: the address book gained its owner (calq serve's users'
	// books); contacts@3 its phone numbers.
	if want := []string{"contacts@3", "convert@1", "sms@1"}; !slices.Equal(got, want) {
		t.Errorf("schema_versions = %v, want %v", got, want)
	}
}
