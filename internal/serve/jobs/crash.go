package jobs

import (
	"context"
	"database/sql"
	"fmt"
)

// crashesSchema is version 4: how many times a job was running when its
// server died (killed, or crashed), so that a job whose files kill the
// server is not run for ever (see Crashed).
const crashesSchema = `
ALTER TABLE serve_jobs ADD COLUMN crashes INTEGER NOT NULL DEFAULT 0;
`

// Crashed records that job id was running when its server died, and
// puts it back in the queue: Start marks it running again when it runs.
// It returns how many times that happened to the job; 0 for a job that
// is not running.
func (s *Store) Crashed(ctx context.Context, id string) (int, error) {
	var n int
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		row := tx.QueryRowContext(ctx, `UPDATE serve_jobs SET crashes = crashes + 1, state = ?
			WHERE id = ? AND state = ? RETURNING crashes`, string(Queued), id, string(Running))
		err := row.Scan(&n)
		if err == sql.ErrNoRows {
			return nil
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("record job %s's crash: %w", id, err)
	}
	return n, nil
}

// Requeue puts running job id back in the queue, as its server stops it
// to stop: no crash.
func (s *Store) Requeue(ctx context.Context, id string) error {
	if _, err := s.exec(ctx, `UPDATE serve_jobs SET state = ? WHERE id = ? AND state = ?`,
		string(Queued), id, string(Running)); err != nil {
		return fmt.Errorf("requeue job %s: %w", id, err)
	}
	return nil
}
