package pgqueue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// WorkerStatus is a worker's row, as `calq worker --status` shows it.
type WorkerStatus struct {
	ID        string    `json:"id"`   // this run of it: name:pid:tag
	Name      string    `json:"name"` // its stable name: the host's, or calq worker --name
	Host      string    `json:"host"`
	Pid       int       `json:"pid"`
	Kinds     []string  `json:"kinds"`
	Disabled  []string  `json:"disabled,omitempty"`
	Shares    []string  `json:"shares,omitempty"` // the ids of the shares it mounts
	Batch     string    `json:"batch,omitempty"`  // a submitter's own worker: the only batch it serves
	Slots     int       `json:"slots"`
	Running   int       `json:"running"`
	Held      int       `json:"held"` // jobs it holds leases on: running and claimed
	Done      int64     `json:"done"`
	Failed    int64     `json:"failed"`
	Started   time.Time `json:"started"`
	Heartbeat time.Time `json:"heartbeat"`
	Age       float64   `json:"heartbeat_age_seconds"` // since the heartbeat, by the server's clock
	Stopped   bool      `json:"stopped"`
	Alive     bool      `json:"alive"` // not stopped, and heard from within a lease
}

// Workers lists the workers that have not stopped, and those that
// stopped within the last hour, newest first.
func (q *Queue) Workers(ctx context.Context) ([]WorkerStatus, error) {
	rows, err := q.pool.Query(ctx, `SELECT w.id, w.name, w.host, w.pid, w.kinds, w.disabled, w.shares, w.batch,
		w.slots, w.running, (SELECT count(*) FROM jobs j WHERE j.worker = w.id AND j.state = 'running'),
		w.done, w.failed, w.started, w.heartbeat, extract(epoch FROM now() - w.heartbeat)::float8,
		w.stopped IS NOT NULL
		FROM workers w WHERE w.stopped IS NULL OR w.stopped > now() - interval '1 hour'
		ORDER BY w.started DESC, w.id`)
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	ws, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WorkerStatus, error) {
		var s WorkerStatus
		err := r.Scan(&s.ID, &s.Name, &s.Host, &s.Pid, &s.Kinds, &s.Disabled, &s.Shares, &s.Batch, &s.Slots,
			&s.Running, &s.Held, &s.Done, &s.Failed, &s.Started, &s.Heartbeat, &s.Age, &s.Stopped)
		s.Alive = !s.Stopped && s.Age < q.lease.Seconds()
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	return ws, nil
}

// ErrNoWorker is wrapped by Unserved's error: no live worker takes some
// of the jobs a submitter is about to queue, which would wait for ever.
var ErrNoWorker = errors.New("no live calq worker")

// NoWorkerError is Unserved's error: the kinds no live worker runs (on
// the share, when it names one).
type NoWorkerError struct {
	Kinds []string
	Share string
}

func (e *NoWorkerError) Error() string {
	on := ""
	if e.Share != "" {
		on = " with the share " + e.Share + " mounted"
	}
	return fmt.Sprintf("%v%s runs %s: nothing submitted", ErrNoWorker, on, strings.Join(e.Kinds, ", "))
}

func (e *NoWorkerError) Unwrap() error { return ErrNoWorker }

// Hint says how to get one.
func (e *NoWorkerError) Hint() string {
	root := ""
	if e.Share != "" {
		root = " --shared-root DIR"
	}
	return fmt.Sprintf("start one on a machine: calq worker --db URL --kinds %s%s; calq worker --status lists the workers",
		strings.Join(e.Kinds, ","), root)
}

// Unserved returns a *NoWorkerError when some of kinds have no live worker
// (heard from within a lease, not limited to another batch) that runs them
// and, for a share, mounts it; nil when every kind has one. An outage is
// waited out, as for the submitter's other calls.
func (q *Queue) Unserved(ctx context.Context, kinds []string, share string) error {
	var missing []string
	err := q.retry(ctx, func(ctx context.Context) error {
		rows, err := q.pool.Query(ctx, `SELECT k FROM unnest($1::text[]) AS k WHERE NOT EXISTS (
			SELECT 1 FROM workers w WHERE w.stopped IS NULL AND w.heartbeat > now() - $2 * interval '1 second'
				AND w.batch = '' AND k = ANY(w.kinds) AND ($3 = '' OR $3 = ANY(w.shares)))
			ORDER BY k`, kinds, q.lease.Seconds(), share)
		if err == nil {
			missing, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("look for live workers: %w", err)
	}
	if len(missing) == 0 {
		return nil
	}
	return &NoWorkerError{Kinds: missing, Share: share}
}
