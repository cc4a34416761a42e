package pgqueue

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"calq/internal/pgdb"
	"calq/sched"
)

// terminal lists the states a job ends in, for SQL.
const terminal = `('done', 'failed', 'timed_out')`

// notifyJobs and notifyAttempts are the LISTEN channels that wake workers
// (new jobs) and submitters (attempts recorded).
const (
	notifyJobs     = "calq_jobs"
	notifyAttempts = "calq_attempts"
)

// Batch returns the key prefix "name#gen" for a batch named name: its
// latest generation, finished or not, so that the same command again
// resumes it or collects what it left (a submitter interrupted while the
// workers went on); a new generation when fresh (--force) or when there
// is none (history prune deletes the batches it empties). Keys of its
// jobs are "name#gen/<id>".
func (q *Queue) Batch(ctx context.Context, name string, fresh bool) (string, error) {
	if name == "" {
		return "", errors.New("batch: empty name")
	}
	var key string
	err := q.retry(ctx, func(ctx context.Context) error { return q.batch(ctx, name, fresh, &key) })
	if err != nil {
		return "", fmt.Errorf("batch %q: %w", name, err)
	}
	return key, nil
}

// batch is Batch's transaction.
func (q *Queue) batch(ctx context.Context, name string, fresh bool, key *string) error {
	return pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('calq_batch:' || $1))`, name); err != nil {
			return err
		}
		var gen int
		err := tx.QueryRow(ctx, `SELECT gen FROM batches WHERE name = $1 ORDER BY gen DESC LIMIT 1`, name).Scan(&gen)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if err == nil && !fresh {
			*key = name + "#" + strconv.Itoa(gen)
			return nil
		}
		*key = name + "#" + strconv.Itoa(gen+1)
		_, err = tx.Exec(ctx, `INSERT INTO batches (key, name, gen) VALUES ($1, $2, $3)`, *key, name, gen+1)
		return err
	})
}

// Submit queues jobs of batch, idempotently by Key (a job already there
// keeps its state), gives each new one its fair-queueing tag and wakes
// the workers. It returns how many jobs were new.
func (q *Queue) Submit(ctx context.Context, batch string, jobs []*sched.Job) (int, error) {
	return q.SubmitOn(ctx, batch, "", jobs)
}

// SubmitOn is Submit for jobs whose files are on the share with id share
// (ShareID): only a worker that mounts it (WorkerOptions.Shares) claims
// them. An empty share is Submit.
func (q *Queue) SubmitOn(ctx context.Context, batch, share string, jobs []*sched.Job) (int, error) {
	n := len(jobs)
	keys, kinds, labels := make([]string, n), make([]string, n), make([]string, n)
	payloads := make([][]byte, n)
	classes, retries := make([]int16, n), make([]int32, n)
	timeouts := make([]*float64, n)
	notBefore := make([]*time.Time, n)
	for i, j := range jobs {
		if j.Key == "" || j.Kind == "" {
			return 0, fmt.Errorf("submit: job %d of %d has no key or kind", i+1, n)
		}
		keys[i], kinds[i], labels[i], payloads[i] = j.Key, j.Kind, j.Label, j.Payload
		classes[i], retries[i] = int16(j.Class.Index()), int32(j.Retries)
		if j.Timeout > 0 {
			t := j.Timeout.Seconds()
			timeouts[i] = &t
		}
		if !j.NotBefore.IsZero() {
			t := j.NotBefore
			notBefore[i] = &t
		}
	}
	var added int
	err := q.retry(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
			// history prune deletes a batch's jobs under this lock,
			// exclusive: it sees these jobs, and keeps their batch.
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared(hashtext('calq_batch_jobs:' || $1))`, batch); err != nil {
				return err
			}
			return q.insertJobs(ctx, tx, batch, share, jobRows{keys, kinds, labels, payloads, classes, retries, timeouts, notBefore}, &added)
		})
	})
	if err != nil {
		return 0, fmt.Errorf("submit %d jobs to %s: %w", n, batch, err)
	}
	return added, nil
}

// jobRows are SubmitOn's jobs, column by column.
type jobRows struct {
	keys, kinds, labels []string
	payloads            [][]byte
	classes             []int16
	retries             []int32
	timeouts            []*float64
	notBefore           []*time.Time
}

// insertJobs adds the jobs in r that batch lacks, with their tags, and
// wakes the workers; added is how many it added.
func (q *Queue) insertJobs(ctx context.Context, tx pgx.Tx, batch, share string, r jobRows, added *int) error {
	tags, err := nextTags(ctx, tx, r.classes)
	if err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, `INSERT INTO jobs (key, batch, kind, label, payload, class, tag, retries, timeout_s, not_before, share)
		SELECT k, $2, kd, l, p, c, t, r, ts, nb, $11
		FROM unnest($1::text[], $3::text[], $4::text[], $5::bytea[], $6::smallint[], $7::float8[],
			$8::integer[], $9::float8[], $10::timestamptz[]) AS u(k, kd, l, p, c, t, r, ts, nb)
		ON CONFLICT (key) DO NOTHING`,
		r.keys, batch, r.kinds, r.labels, r.payloads, r.classes, tags, r.retries, r.timeouts, r.notBefore, share)
	if err != nil {
		return err
	}
	*added = int(tag.RowsAffected())
	_, err = tx.Exec(ctx, `SELECT pg_notify($1, '')`, notifyJobs)
	return err
}

// nextTags gives jobs of classes their tags: for each, the class's
// virtual finish time max(V, F_c) + 1/w_c, V being the smallest tag still
// queued (the next to be served), or the largest finish time when nothing
// is queued. Submitters take turns under an advisory lock.
func nextTags(ctx context.Context, tx pgx.Tx, classes []int16) ([]float64, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('calq_tags'))`); err != nil {
		return nil, err
	}
	var v float64
	if err := tx.QueryRow(ctx, `SELECT COALESCE((SELECT min(tag) FROM jobs WHERE state = 'queued'),
		(SELECT max(finish) FROM class_tags), 0)`).Scan(&v); err != nil {
		return nil, err
	}
	var finish [sched.NumClasses]float64
	rows, err := tx.Query(ctx, `SELECT class, finish FROM class_tags`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var c int16
		var f float64
		if err := rows.Scan(&c, &f); err != nil {
			return nil, err
		}
		if c >= 0 && int(c) < sched.NumClasses {
			finish[c] = f
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	tags := make([]float64, len(classes))
	for i, c := range classes {
		finish[c] = max(v, finish[c]) + 1/sched.ClassOf(int(c)).Weight()
		tags[i] = finish[c]
	}
	for c, f := range finish {
		if _, err := tx.Exec(ctx, `INSERT INTO class_tags VALUES ($1, $2)
			ON CONFLICT (class) DO UPDATE SET finish = EXCLUDED.finish`, c, f); err != nil {
			return nil, err
		}
	}
	return tags, nil
}

// Update is one attempt's record, as a batch's submitter follows them.
type Update struct {
	Seq      int64
	Key      string
	Label    string
	Kind     string
	Payload  []byte
	Attempt  int
	Worker   string
	State    sched.State
	Final    bool // the job's last attempt: it has ended
	Err      string
	Reason   string
	Started  time.Time
	Finished time.Time
	Stdout   []byte
	Stderr   []byte
	Result   []byte
	RetryAt  time.Time // when the job runs again; zero for a final attempt or a requeue
	Retries  int       // the job's retry budget
	xid      uint64    // the recording transaction
}

// Updates returns the attempts of batch recorded by transactions from
// xid after on, in order of recording, and the horizon to pass as after
// next time: every transaction before it has ended, so nothing more will
// appear below it. Attempts at and above the horizon come again; callers
// skip those they have (Update.Key and Attempt tell them apart).
func (q *Queue) Updates(ctx context.Context, batch string, after uint64) ([]Update, uint64, error) {
	us, horizon, _, err := q.updates(ctx, batch, after, 0, 0)
	return us, horizon, err
}

// updatesPage and updatesBytes bound a page of Follow's: it ends at
// updatesPage attempts, or before the attempt that would take its
// outputs (stdout and stderr) past updatesBytes, whichever comes first;
// it holds one attempt at least (at most 2 MiB of output, the caps).
// Only a page is in memory at once, whatever the batch's size.
var (
	updatesPage        = 64
	updatesBytes int64 = 8 << 20
)

// updatesWhere selects the attempts of batch $1 recorded from xid $2 on
// and numbered after $3, as a (attempts) and j (their jobs).
const updatesWhere = `j.batch = $1 AND a.xid >= $2::text::xid8 AND a.seq > $3`

// updates is Updates from after the attempt numbered seq on, a page of
// at most limit of them (see updatesBytes) when limit > 0, and whether
// more follow the page: a resuming submitter pages through its batch's
// outputs (by seq, its order) rather than reading them at once.
func (q *Queue) updates(ctx context.Context, batch string, after uint64, seq int64, limit int) ([]Update, uint64, bool, error) {
	var horizon uint64
	var us []Update
	var more bool
	args := []any{batch, strconv.FormatUint(after, 10), seq, int64(math.MaxInt64)}
	err := pgx.BeginTxFunc(ctx, q.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		// One snapshot for the horizon and the rows: a transaction below
		// the horizon had ended when the snapshot was taken.
		if err := tx.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&horizon); err != nil {
			return err
		}
		if limit > 0 {
			var err error
			if args[3], more, err = pageEnd(ctx, tx, args[:3:3], limit); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, `SELECT a.seq, j.key, j.label, j.kind, j.payload, a.attempt,
			COALESCE(a.worker, ''), a.state, a.final, COALESCE(a.error, ''), COALESCE(a.reason, ''),
			a.started, a.finished, a.stdout, a.stderr, a.result, a.retry_at, j.retries, a.xid::text::bigint
			FROM attempts a JOIN jobs j ON j.id = a.job_id
			WHERE `+updatesWhere+` AND a.seq <= $4 ORDER BY a.seq`, args...)
		if err != nil {
			return err
		}
		us, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Update, error) {
			var u Update
			var started, retryAt *time.Time
			err := r.Scan(&u.Seq, &u.Key, &u.Label, &u.Kind, &u.Payload, &u.Attempt, &u.Worker, &u.State, &u.Final,
				&u.Err, &u.Reason, &started, &u.Finished, &u.Stdout, &u.Stderr, &u.Result, &retryAt, &u.Retries, &u.xid)
			if started != nil {
				u.Started = *started
			}
			if retryAt != nil {
				u.RetryAt = *retryAt
			}
			return u, err
		})
		return err
	})
	if err != nil {
		return nil, after, false, fmt.Errorf("read updates of %s: %w", batch, err)
	}
	return us, horizon, more, nil
}

// pageEnd returns the seq of the last attempt of the page that args
// (updatesWhere's) select, limit attempts at most, and whether more
// follow it. It reads the outputs' sizes only, not the outputs.
func pageEnd(ctx context.Context, tx pgx.Tx, args []any, limit int) (int64, bool, error) {
	rows, err := tx.Query(ctx, `SELECT a.seq, COALESCE(octet_length(a.stdout), 0) + COALESCE(octet_length(a.stderr), 0)
		FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE `+updatesWhere+` ORDER BY a.seq LIMIT $4`,
		append(args, limit+1)...)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	end, total, n := args[2].(int64), int64(0), 0
	for rows.Next() {
		var seq, size int64
		if err := rows.Scan(&seq, &size); err != nil {
			return 0, false, err
		}
		if n == limit || (n > 0 && total+size > updatesBytes) {
			return end, true, nil
		}
		end, total, n = seq, total+size, n+1
	}
	return end, false, rows.Err()
}

// Progress counts a batch's jobs by state.
type Progress struct {
	Jobs, Queued, Running, Done, Failed, TimedOut int
}

// Open is how many of the batch's jobs have not ended.
func (p Progress) Open() int { return p.Queued + p.Running }

// Progress counts batch's jobs by state.
func (q *Queue) Progress(ctx context.Context, batch string) (Progress, error) {
	var p Progress
	err := q.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE state = 'queued'),
		count(*) FILTER (WHERE state = 'running'), count(*) FILTER (WHERE state = 'done'),
		count(*) FILTER (WHERE state = 'failed'), count(*) FILTER (WHERE state = 'timed_out')
		FROM jobs WHERE batch = $1`, batch).Scan(&p.Jobs, &p.Queued, &p.Running, &p.Done, &p.Failed, &p.TimedOut)
	if err != nil {
		return p, fmt.Errorf("count jobs of %s: %w", batch, err)
	}
	return p, nil
}

// Follow calls fn with each attempt of batch once, in the order of
// recording, until every job of the batch has ended or ctx is done. It wakes
// on the workers' notifications and polls every second besides; when the
// server goes away it tries again every second until ctx ends, telling
// Options.Link when the outage begins and when it ends. An error the
// server reports (a query it refuses) ends it.
func (q *Queue) Follow(ctx context.Context, batch string, fn func(Update)) error {
	f := &follower{batch: batch, seen: map[attemptKey]uint64{}, fn: fn}
	for {
		done, err := q.follow(ctx, f)
		var pe *pgconn.PgError
		refused := errors.As(err, &pe) && !transient(pe)
		if err != nil && !refused && ctx.Err() == nil {
			q.link.Fail(err)
		}
		if done || ctx.Err() != nil || refused {
			// An error the server reported is no outage: give up.
			if err == nil && ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(time.Second):
		}
	}
}

type attemptKey struct {
	key     string
	attempt int
}

// follower is Follow's state: the horizon, and the attempts delivered
// at or above it.
type follower struct {
	batch   string
	horizon uint64
	seen    map[attemptKey]uint64 // attempt → its transaction
	fn      func(Update)
}

// transient says whether the server's error is an outage rather than a
// refusal (see pgdb.TransientCode).
func transient(pe *pgconn.PgError) bool { return pgdb.TransientCode(pe.Code) }

// follow is one connection's share of Follow: it returns done once the
// batch has ended, and an error when the connection failed.
func (q *Queue) follow(ctx context.Context, f *follower) (bool, error) {
	batch := f.batch
	conn, err := q.pool.Acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("follow %s: %w", batch, err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyAttempts); err != nil {
		return false, fmt.Errorf("follow %s: %w", batch, err)
	}
	q.link.OK()
	defer conn.Exec(context.WithoutCancel(ctx), "UNLISTEN "+notifyAttempts)
	deliver := func() error {
		horizon, err := q.deliver(ctx, f)
		if err != nil {
			return err
		}
		if horizon > f.horizon {
			// Attempts below the horizon never come again.
			f.horizon = horizon
			maps.DeleteFunc(f.seen, func(_ attemptKey, xid uint64) bool { return xid < horizon })
		}
		return nil
	}
	for {
		if err := deliver(); err != nil {
			return false, err
		}
		p, err := q.Progress(ctx, batch)
		if err != nil {
			return false, err
		}
		if p.Open() == 0 {
			// The last attempts may have been recorded after the read
			// above. A connection lost reading them is an outage like
			// any other: Follow tries again, it does not end.
			if err := deliver(); err != nil {
				return false, err
			}
			return true, nil
		}
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err = conn.Conn().WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return false, nil
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return false, fmt.Errorf("follow %s: %w", batch, err)
		}
	}
}

// deliver calls f.fn with the attempts of f's batch from its horizon on
// that it has not seen, a page at a time, and returns the horizon the
// first page's snapshot gave: a page read later can only hold more.
func (q *Queue) deliver(ctx context.Context, f *follower) (uint64, error) {
	var horizon uint64
	var seq int64
	for page := 0; ; page++ {
		us, h, more, err := q.updates(ctx, f.batch, f.horizon, seq, updatesPage)
		if err != nil {
			return 0, err
		}
		if page == 0 {
			horizon = h
		}
		for _, u := range us {
			k := attemptKey{u.Key, u.Attempt}
			if _, ok := f.seen[k]; !ok {
				f.seen[k] = u.xid
				f.fn(u)
			}
			seq = u.Seq
		}
		if !more {
			return horizon, nil
		}
	}
}

// States returns the states of the jobs with keys, by key; a key with no
// job is absent. A submitter asks which of its jobs an earlier run of the
// batch has finished.
func (q *Queue) States(ctx context.Context, keys []string) (map[string]sched.State, error) {
	var states map[string]sched.State
	err := q.retry(ctx, func(ctx context.Context) error {
		states = map[string]sched.State{}
		rows, err := q.pool.Query(ctx, `SELECT key, state FROM jobs WHERE key = ANY($1)`, keys)
		if err != nil {
			return err
		}
		var key, state string
		_, err = pgx.ForEachRow(rows, []any{&key, &state}, func() error {
			states[key] = sched.State(state)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the states of %d jobs: %w", len(keys), err)
	}
	return states, nil
}
