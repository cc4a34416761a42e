package convert

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"calq/internal/bytestr"
	"calq/sched"
	"calq/sched/journal"
)

// TestStoreContract runs one suite against every Store: in memory and in
// the journal's file.
func TestStoreContract(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) Store{
		"memory": func(*testing.T) Store { return newMemStore() },
		"sqlite": func(t *testing.T) Store {
			j, err := journal.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"), journal.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { j.Close() })
			s, err := OpenStore(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	} {
		t.Run(name, func(t *testing.T) { storeContract(t, open(t)) })
	}
}

func storeContract(t *testing.T, s Store) {
	ctx := context.Background()
	latin := "/out/caf\xe9.pdf" // not UTF-8: kept as bytes
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	put := func(r Record) {
		t.Helper()
		if err := s.Pending(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	put(Record{Output: latin, Input: "/in/caf\xe9.png", InputSum: "i1", Options: "o1", PendingSum: "p1", Converted: at})
	r, ok, err := s.Record(ctx, latin)
	if err != nil || !ok || r.PendingSum != "p1" || r.OutputSum != "" || r.Input != "/in/caf\xe9.png" {
		t.Fatalf("after Pending: %+v, %v, %v; want pending p1, nothing placed", r, ok, err)
	}
	if err := s.Placed(ctx, latin); err != nil {
		t.Fatal(err)
	}
	r, _, _ = s.Record(ctx, latin)
	if r.OutputSum != "p1" || r.PendingSum != "" || !r.Converted.Equal(at) {
		t.Errorf("after Placed: %+v; want output p1, none pending, converted %v", r, at)
	}
	// A second conversion pending keeps the placed digest until placed.
	put(Record{Output: latin, Input: "/in/caf\xe9.png", InputSum: "i2", Options: "o1", PendingSum: "p2", Converted: at})
	r, _, _ = s.Record(ctx, latin)
	if r.OutputSum != "p1" || r.PendingSum != "p2" || r.InputSum != "i2" {
		t.Errorf("second Pending: %+v; want output p1 kept, p2 pending", r)
	}
	put(Record{Output: "/out2/x.pdf", Input: "/in/x.png", InputSum: "i", Options: "o", PendingSum: "p", Converted: at})
	recs, err := s.Records(ctx, "/out")
	if err != nil || len(recs) != 1 || recs[latin].Output != latin {
		t.Errorf("Records(/out) = %v, %v; want only %q (not /out2's)", recs, err, latin)
	}
	if _, ok, err := s.Record(ctx, "/out/none.pdf"); ok || err != nil {
		t.Errorf("Record of an unknown output: %v, %v; want none", ok, err)
	}
	a, err1 := s.Salt(ctx)
	b, err2 := s.Salt(ctx)
	if err1 != nil || err2 != nil || len(a) < 16 || string(a) != string(b) {
		t.Errorf("Salt = %x, %x (%v, %v); want one stable value", a, b, err1, err2)
	}
}

// TestUpgradeKeepsOldOutputs: a PDF that a calq from before the records
// converted (known only from its finished job) is calq's: the upgrade
// converts it again instead of refusing it as someone else's file.
func TestUpgradeKeepsOldOutputs(t *testing.T) {
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	in := copyFiles(t, "pages_3.pdf")
	out := t.TempDir()
	old := filepath.Join(out, "pages_3.pdf")
	copyTo(t, filepath.Join(testdata, "testPDF.pdf"), old)
	finishOldJob(t, j, filepath.Join(in, "pages_3.pdf"), old)
	store, err := OpenStore(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(ctx, Options{Inputs: []string{in}, Out: out, Journal: j, Store: store})
	if err != nil || sum.Converted != 1 {
		t.Errorf("upgrade run: %+v, %v; want the old PDF converted again", sum, err)
	}
}

// finishOldJob records in j a conversion of in into out, finished, as a
// calq from before the provenance records left it: a job whose payload
// alone names them.
func finishOldJob(t *testing.T, j *journal.Journal, in, out string) {
	t.Helper()
	ctx := context.Background()
	p, _ := json.Marshal(payload{Input: bytestr.String(in), Output: bytestr.String(out)})
	job := &sched.Job{Key: "convert:old:" + out, Kind: kindPDF, Class: sched.P2, Payload: p}
	if _, err := j.Enqueue(ctx, []*sched.Job{job}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Claim(ctx, job, "pdfcpu", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := j.Finish(ctx, sched.Attempt{Job: job, Backend: "pdfcpu", Attempt: 1, State: sched.StateDone,
		Started: time.Now(), Finished: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
