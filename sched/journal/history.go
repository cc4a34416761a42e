package journal

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"calq/sched"
	"calq/sched/history"
)

// The history types are sched/history's; the journal is one of its
// stores.
type (
	Filter       = history.Filter
	Record       = history.Record
	Stats        = history.Stats
	Group        = history.Group
	Summary      = history.Summary
	ReasonCount  = history.ReasonCount
	PruneOptions = history.PruneOptions
)

var _ history.Store = (*Journal)(nil)

// where renders f as an SQL condition and its arguments.
func where(f Filter) (string, []any) {
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

// recordColumns are the columns scanRecord reads, in its order.
const recordColumns = `id, key, kind, label, payload, class, backend, state, attempts, retries,
	timeout_s, not_before, enqueued, started, finished, ran_on, error, reason, wait_s, run_s,
	owner, owner_pid, owner_host, lease_until`

// List returns the jobs f selects, newest first.
func (j *Journal) List(ctx context.Context, f Filter) ([]Record, error) {
	where, args := where(f)
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
