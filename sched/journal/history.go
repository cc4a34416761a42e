package journal

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"calq/sched"
)

// Filter selects jobs for List and Stats. Zero fields select everything.
type Filter struct {
	Kind    string // a kind ("convert-office"), or a family of kinds ("convert" matches convert-*)
	State   sched.State
	Backend string    // the backend of the last attempt (ran_on)
	Label   string    // jobs whose label contains it
	Since   time.Time // enqueued at or after
	Until   time.Time // enqueued before
	Limit   int       // List returns at most this many; 0 for all
}

// where renders f as an SQL condition and its arguments.
func (f Filter) where() (string, []any) {
	conds := []string{"1"}
	var args []any
	add := func(cond string, arg any) {
		conds = append(conds, cond)
		args = append(args, arg)
	}
	if f.Kind != "" {
		conds = append(conds, "(kind = ? OR substr(kind, 1, ?) = ?)")
		args = append(args, f.Kind, len(f.Kind)+1, f.Kind+"-")
	}
	if f.State != "" {
		add("state = ?", string(f.State))
	}
	if f.Backend != "" {
		add("ran_on = ?", f.Backend)
	}
	if f.Label != "" {
		add("instr(label, ?) > 0", f.Label)
	}
	if !f.Since.IsZero() {
		add("enqueued >= ?", timeText(f.Since))
	}
	if !f.Until.IsZero() {
		add("enqueued < ?", timeText(f.Until))
	}
	return strings.Join(conds, " AND "), args
}

// Record is a job as the journal holds it. Times are UTC; a zero time, a
// nil duration or an empty string is a NULL column, left out of JSON.
type Record struct {
	ID         int64       `json:"id"`
	Key        string      `json:"key"`
	Kind       string      `json:"kind"`
	Label      string      `json:"label,omitempty"`
	Payload    []byte      `json:"payload,omitempty"`
	Class      sched.Class `json:"class"`
	Backend    string      `json:"backend,omitempty"` // requested
	State      sched.State `json:"state"`
	Attempts   int         `json:"attempts"`
	Retries    int         `json:"retries"`
	TimeoutS   *float64    `json:"timeout_seconds,omitempty"`
	NotBefore  time.Time   `json:"not_before,omitzero"`
	Enqueued   time.Time   `json:"enqueued"`
	Started    time.Time   `json:"started,omitzero"` // first start
	Finished   time.Time   `json:"finished,omitzero"`
	RanOn      string      `json:"ran_on,omitempty"` // backend of the last attempt
	Error      string      `json:"error,omitempty"`
	Reason     string      `json:"reason,omitempty"`
	WaitS      *float64    `json:"wait_seconds,omitempty"` // first start - enqueued
	RunS       *float64    `json:"run_seconds,omitempty"`  // the last attempt's duration
	Owner      string      `json:"owner,omitempty"`
	OwnerPid   int         `json:"owner_pid,omitempty"`
	OwnerHost  string      `json:"owner_host,omitempty"`
	LeaseUntil time.Time   `json:"lease_until,omitzero"`
}

// recordColumns are the columns scanRecord reads, in its order.
const recordColumns = `id, key, kind, label, payload, class, backend, state, attempts, retries,
	timeout_s, not_before, enqueued, started, finished, ran_on, error, reason, wait_s, run_s,
	owner, owner_pid, owner_host, lease_until`

// List returns the jobs f selects, newest first.
func (j *Journal) List(ctx context.Context, f Filter) ([]Record, error) {
	where, args := f.where()
	q := `SELECT ` + recordColumns + ` FROM jobs WHERE ` + where + ` ORDER BY enqueued DESC, id DESC`
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	recs, err := queryRecords(ctx, j.db, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return recs, nil
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func queryRecords(ctx context.Context, db querier, q string, args ...any) ([]Record, error) {
	var recs []Record
	err := eachRecord(ctx, db, q, args, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

// eachRecord calls fn with each record that q, a SELECT of
// recordColumns, returns.
func eachRecord(ctx context.Context, db querier, q string, args []any, fn func(Record) error) error {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

func scanRecord(rows *sql.Rows) (Record, error) {
	var r Record
	var label, backend, ranOn, errText, reason, owner, host sql.NullString
	var pid sql.NullInt64
	var class int
	var times [5]sql.NullString
	var timeout, wait, run sql.NullFloat64
	err := rows.Scan(&r.ID, &r.Key, &r.Kind, &label, &r.Payload, &class, &backend, &r.State,
		&r.Attempts, &r.Retries, &timeout, &times[0], &times[1], &times[2], &times[3], &ranOn,
		&errText, &reason, &wait, &run, &owner, &pid, &host, &times[4])
	if err != nil {
		return r, err
	}
	r.Class = sched.ClassOf(class)
	r.Label, r.Backend, r.RanOn, r.Error = label.String, backend.String, ranOn.String, errText.String
	r.Reason, r.Owner, r.OwnerHost, r.OwnerPid = reason.String, owner.String, host.String, int(pid.Int64)
	r.TimeoutS, r.WaitS, r.RunS = floatOrNil(timeout), floatOrNil(wait), floatOrNil(run)
	for i, dst := range []*time.Time{&r.NotBefore, &r.Enqueued, &r.Started, &r.Finished, &r.LeaseUntil} {
		if *dst, err = parseTime(times[i]); err != nil {
			return r, fmt.Errorf("job %q: %w", r.Key, err)
		}
	}
	return r, nil
}

func floatOrNil(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return &f.Float64
}
