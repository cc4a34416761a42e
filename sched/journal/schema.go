package journal

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"calq/internal/sqltime"
)

// schemaVersion is the PRAGMA user_version of the schema below.
const schemaVersion = 1

// schema is version 1. Times are TEXT in sqltime.Layout, UTC; durations REAL
// seconds: people read the file with sqlite3.
const schema = `
CREATE TABLE batches (
	key     TEXT PRIMARY KEY, -- name#gen, the prefix of its jobs' keys
	name    TEXT NOT NULL,
	gen     INTEGER NOT NULL,
	created TEXT NOT NULL
);
CREATE UNIQUE INDEX batches_name_gen ON batches(name, gen);
CREATE TABLE jobs (
	id          INTEGER PRIMARY KEY,
	key         TEXT NOT NULL UNIQUE,
	kind        TEXT NOT NULL,
	label       TEXT NOT NULL DEFAULT '',
	payload     BLOB,
	class       INTEGER NOT NULL, -- 0..3 for P0..P3
	backend     TEXT NOT NULL DEFAULT '', -- requested; '' for any
	state       TEXT NOT NULL,
	attempts    INTEGER NOT NULL DEFAULT 0,
	retries     INTEGER NOT NULL,
	timeout_s   REAL,
	not_before  TEXT,
	enqueued    TEXT NOT NULL,
	started     TEXT, -- first start
	finished    TEXT,
	ran_on      TEXT, -- backend of the last attempt
	error       TEXT,
	reason      TEXT,
	wait_s      REAL, -- first start - enqueued
	run_s       REAL, -- the last attempt's duration
	owner       TEXT,
	owner_pid   INTEGER,
	owner_host  TEXT,
	lease_until TEXT
);
-- Few indexes: each costs every job b-tree updates, and the journal must
-- keep up with the engine. History queries scan the table; recovery and
-- heartbeats look only at running jobs, a partial index's few rows.
CREATE INDEX jobs_running ON jobs(owner) WHERE state = 'running';
CREATE TABLE attempts (
	job_id   INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	attempt  INTEGER NOT NULL,
	backend  TEXT,
	state    TEXT NOT NULL,
	started  TEXT,
	finished TEXT,
	error    TEXT,
	reason   TEXT,
	PRIMARY KEY (job_id, attempt)
) WITHOUT ROWID; -- one b-tree, not a table and its key's index
-- attempts holds every attempt but one kind: a job's only attempt when it
-- succeeded, which the jobs row tells in full (a row fewer per job, a
-- fifth of the journal's work). attempt_log shows them all.
CREATE VIEW attempt_log AS
	SELECT job_id, attempt, backend, state, started, finished, error, reason FROM attempts
	UNION ALL
	SELECT id, 1, ran_on, 'done', started, finished, NULL, NULL FROM jobs
	WHERE state = 'done' AND attempts = 1;
`

// terminalStates are the states of sched.State.Terminal, for SQL.
const terminalStates = `('done', 'failed', 'timed_out')`

// migrate creates the schema in a new file and refuses one written by a
// newer calq. It runs in a write transaction, so two processes opening a
// new file at once create the schema once.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	switch {
	case v > schemaVersion:
		return fmt.Errorf("schema version %d is newer than this calq's (%d)", v, schemaVersion)
	case v < schemaVersion:
		if _, err := tx.ExecContext(ctx, schema); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// timeText and parseTime write and read time columns (see sqltime).
var (
	timeText  = sqltime.Text
	parseTime = sqltime.Parse
)

// textOrNull stores an empty string as NULL.
func textOrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// secondsOrNull stores a zero duration as NULL.
func secondsOrNull(d time.Duration) any {
	if d == 0 {
		return nil
	}
	return d.Seconds()
}
