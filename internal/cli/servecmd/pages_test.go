package servecmd

import (
	"context"
	"path/filepath"
	"testing"

	"calq/sched/journal"
	"calq/sms/store"
)

// TestPageStores: the monitoring page counts SMS only from a journal
// that calq sms uses, and gives no other journal SMS tables.
func TestPageStores(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	j, err := journal.Open(ctx, filepath.Join(dir, "calq.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	contacts, profiles, sms, err := pageStores(ctx, j, dir)
	if err != nil || contacts == nil || profiles == nil {
		t.Fatalf("pageStores: %v %v %v", contacts, profiles, err)
	}
	if sms != nil {
		t.Fatal("a journal without calq sms has SMS counts")
	}
	if has, err := hasSMS(ctx, j); err != nil || has {
		t.Fatalf("pageStores gave the journal SMS tables: %v %v", has, err)
	}
	st, err := store.Open(ctx, j) // what calq sms does on its journal
	if err != nil {
		t.Fatal(err)
	}
	if _, _, sms, err = pageStores(ctx, j, dir); err != nil || sms == nil {
		t.Fatalf("a journal of calq sms: %v %v", sms, err)
	}
	c, err := sms.Counts(ctx)
	want, _ := st.Counts(ctx)
	if err != nil || c.Inbox != want.Inbox || len(c.Outbox) != len(want.Outbox) {
		t.Errorf("counts %+v %v, want %+v", c, err, want)
	}
}
