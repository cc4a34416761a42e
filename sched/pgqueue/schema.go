package pgqueue

import (
	"context"

	"calq/internal/pgdb"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// component is this package's row in calq_schema.
const component = "sched"

// migrations are the schema's versions in order: migrations[i] brings
// version i to i+1. Released entries never change; a new version appends.
var migrations = []string{
	`CREATE SEQUENCE calq_seq;
	CREATE TABLE batches (
		key     text PRIMARY KEY, -- name#gen, the prefix of its jobs' keys
		name    text NOT NULL,
		gen     integer NOT NULL,
		created timestamptz NOT NULL DEFAULT now(),
		UNIQUE (name, gen)
	);
	CREATE TABLE jobs (
		id          bigserial PRIMARY KEY,
		key         text NOT NULL UNIQUE,
		batch       text NOT NULL DEFAULT '',
		kind        text NOT NULL,
		label       text NOT NULL DEFAULT '',
		payload     bytea,
		class       smallint NOT NULL, -- 0..3 for P0..P3
		tag         double precision NOT NULL, -- claim order: the class's virtual finish time
		state       text NOT NULL DEFAULT 'queued',
		attempts    integer NOT NULL DEFAULT 0,
		retries     integer NOT NULL DEFAULT 0,
		timeout_s   double precision,
		not_before  timestamptz,
		enqueued    timestamptz NOT NULL DEFAULT now(),
		started     timestamptz, -- first start
		finished    timestamptz,
		ran_on      text, -- the worker of the last attempt
		worker      text, -- the worker holding it while running
		lease_until timestamptz,
		error       text,
		reason      text,
		wait_s      double precision,
		run_s       double precision
	);
	CREATE INDEX jobs_claim ON jobs (tag, id) WHERE state = 'queued';
	CREATE INDEX jobs_running ON jobs (worker) WHERE state = 'running';
	CREATE INDEX jobs_batch ON jobs (batch);
	CREATE TABLE attempts (
		job_id   bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
		attempt  integer NOT NULL,
		seq      bigint NOT NULL DEFAULT nextval('calq_seq'), -- the order of records
		xid      xid8 NOT NULL DEFAULT pg_current_xact_id(), -- its transaction: followers read past the xmin horizon
		worker   text,
		state    text NOT NULL,
		final    boolean NOT NULL, -- the job's last attempt
		started  timestamptz,
		finished timestamptz NOT NULL DEFAULT now(),
		error    text,
		reason   text,
		stdout   bytea,
		stderr   bytea,
		result   bytea, -- what the kind's worker returns
		retry_at timestamptz, -- when the job runs again, after a failed attempt that is not final
		retries  integer, -- the job's retry budget
		PRIMARY KEY (job_id, attempt)
	);
	CREATE INDEX attempts_xid ON attempts (xid);
	CREATE TABLE class_tags (
		class  smallint PRIMARY KEY,
		finish double precision NOT NULL
	);
	CREATE TABLE workers (
		id        text PRIMARY KEY, -- host:pid:tag
		host      text NOT NULL,
		pid       integer NOT NULL,
		kinds     text[] NOT NULL,
		slots     integer NOT NULL,
		running   integer NOT NULL DEFAULT 0,
		done      bigint NOT NULL DEFAULT 0,
		failed    bigint NOT NULL DEFAULT 0,
		disabled  text[] NOT NULL DEFAULT '{}',
		started   timestamptz NOT NULL DEFAULT now(),
		heartbeat timestamptz NOT NULL DEFAULT now(),
		stopped   timestamptz
	);
	CREATE TABLE blobs (
		digest text NOT NULL, -- sha256 of the whole file, hex
		seq    integer NOT NULL,
		data   bytea NOT NULL,
		created timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (digest, seq)
	);`,
	// 2: a worker's stable name (ran_on, attempts: stats group by it, not
	// by process) and the shares it mounts; a job's share, which only
	// such a worker claims; conversions take the kinds they have on
	// SQLite (the payload's sniffed kind: 2 image, 3 PDF, else office).
	`ALTER TABLE workers ADD COLUMN name text, ADD COLUMN shares text[] NOT NULL DEFAULT '{}',
		ADD COLUMN batch text NOT NULL DEFAULT ''; -- a submitter's own worker serves only its batch
	UPDATE workers SET name = host;
	ALTER TABLE workers ALTER COLUMN name SET NOT NULL;
	ALTER TABLE jobs ADD COLUMN share text NOT NULL DEFAULT '';
	UPDATE jobs SET kind = CASE
		WHEN position('"kind":2'::bytea IN payload) > 0 THEN 'convert-image'
		WHEN position('"kind":3'::bytea IN payload) > 0 THEN 'convert-pdf'
		ELSE 'convert-office' END
	WHERE kind = 'convert';`,
	// 3: history prune finds the jobs that ended before a time by index.
	`CREATE INDEX jobs_ended ON jobs (finished) WHERE state IN ('done', 'failed', 'timed_out');`,
}

// migrate applies the migrations this database lacks (see pgdb.Migrate).
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		return pgdb.Migrate(ctx, pgxTx{tx}, schema, component, migrations)
	})
}

// pgxTx is a pgx transaction as pgdb.Migrate takes it.
type pgxTx struct{ tx pgx.Tx }

func (t pgxTx) Exec(ctx context.Context, sql string, args ...any) error {
	_, err := t.tx.Exec(ctx, sql, args...)
	return err
}

func (t pgxTx) QueryRow(ctx context.Context, sql string, args ...any) interface{ Scan(...any) error } {
	return t.tx.QueryRow(ctx, sql, args...)
}
