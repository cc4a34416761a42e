package pgqueue

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// WorkerStatus is a worker's row, as `calq worker --status` shows it.
type WorkerStatus struct {
	ID        string    `json:"id"`
	Host      string    `json:"host"`
	Pid       int       `json:"pid"`
	Kinds     []string  `json:"kinds"`
	Disabled  []string  `json:"disabled,omitempty"`
	Slots     int       `json:"slots"`
	Running   int       `json:"running"`
	Held      int       `json:"held"` // jobs it holds leases on: running and claimed
	Done      int64     `json:"done"`
	Failed    int64     `json:"failed"`
	Started   time.Time `json:"started"`
	Heartbeat time.Time `json:"heartbeat"`
	Age       float64   `json:"heartbeat_age_s"` // seconds since the heartbeat, by the server's clock
	Stopped   bool      `json:"stopped"`
	Alive     bool      `json:"alive"` // not stopped, and heard from within a lease
}

// Workers lists the workers that have not stopped, and those that
// stopped within the last hour, newest first.
func (q *Queue) Workers(ctx context.Context) ([]WorkerStatus, error) {
	rows, err := q.pool.Query(ctx, `SELECT w.id, w.host, w.pid, w.kinds, w.disabled, w.slots, w.running,
		(SELECT count(*) FROM jobs j WHERE j.worker = w.id AND j.state = 'running'),
		w.done, w.failed, w.started, w.heartbeat, extract(epoch FROM now() - w.heartbeat)::float8,
		w.stopped IS NOT NULL
		FROM workers w WHERE w.stopped IS NULL OR w.stopped > now() - interval '1 hour'
		ORDER BY w.started DESC, w.id`)
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	ws, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WorkerStatus, error) {
		var s WorkerStatus
		err := r.Scan(&s.ID, &s.Host, &s.Pid, &s.Kinds, &s.Disabled, &s.Slots, &s.Running, &s.Held, &s.Done,
			&s.Failed, &s.Started, &s.Heartbeat, &s.Age, &s.Stopped)
		s.Alive = !s.Stopped && s.Age < q.lease.Seconds()
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	return ws, nil
}
