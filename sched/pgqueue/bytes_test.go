package pgqueue

import (
	"context"
	"errors"
	"testing"

	"calq/internal/pgtest"
	"calq/sched"
)

// TestErrorBytesRecorded: a job whose error quotes bytes that are not
// UTF-8, or a NUL, ends failed with that error recorded escaped; before,
// PostgreSQL refused the row that records the attempt, and the job never
// ended.
func TestErrorBytesRecorded(t *testing.T) {
	srv := pgtest.Start(t)
	q := open(t, srv.URL, 0)
	ctx := context.Background()
	batch, _ := q.Batch(ctx, "bytes", false)
	if _, err := q.Submit(ctx, batch, jobs(batch, "latin1", 1, sched.P2, func(int) string { return "" })); err != nil {
		t.Fatal(err)
	}
	w := q.NewWorker(WorkerOptions{Jobs: 1})
	w.Handle("latin1", sched.WorkerFunc(func(ctx context.Context, j *sched.Job) error {
		return sched.Permanent(errors.New("convert r\xe9sum\xe9.doc: LibreOffice said \x00"))
	}))
	runWorker(t, w)
	us := follow(t, q, batch)
	if len(us) != 1 || us[0].State != sched.StateFailed || us[0].Err != `convert r\xe9sum\xe9.doc: LibreOffice said \x00` {
		t.Errorf("updates %+v, want one failed attempt with its error escaped", us)
	}
}
