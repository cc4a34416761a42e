// Package jobs is calq serve's record of the requests it accepted: one job
// per request, kept in a table of the journal's file (its own, created by
// its migrations), so that a server killed at any point finishes every
// accepted job when it starts again. The files themselves live in the
// server's data directory, one directory per job; the table says what
// they are.
//
// Store records a job's life (Add, Start, SetFiles, Finish, Expire; Requeue
// and Crashed when its server stops or died while it ran) and
// reads it back: Get, Pending and Before for the server, Query (filtered,
// paged, one scan of the matching rows) for the history pages and the
// administrator's log, which WriteCSV and WriteJSONL export. A Store is
// safe for concurrent use; its writes go through the journal's writer.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"calq/internal/sqltime"
	"calq/sched"
	"calq/sched/journal"
)

// schema is version 1 of the table.
const schema = `
CREATE TABLE IF NOT EXISTS serve_jobs (
	id       TEXT PRIMARY KEY,
	owner    TEXT NOT NULL,        -- the user who sent it; "" without authentication
	route    TEXT NOT NULL,        -- libreoffice/convert, pdfengines/merge...
	class    INTEGER NOT NULL,     -- sched.Class
	state    TEXT NOT NULL,        -- see State
	sync     INTEGER NOT NULL,     -- a client waits on the connection
	created  TEXT NOT NULL,
	started  TEXT,
	finished TEXT,
	request  TEXT NOT NULL,        -- JSON: the files and the options (see Request)
	result   TEXT,                 -- JSON: see Result
	error    TEXT,
	status   INTEGER NOT NULL DEFAULT 0 -- the HTTP status of a failure
);
CREATE INDEX IF NOT EXISTS serve_jobs_state ON serve_jobs (state, created);
CREATE INDEX IF NOT EXISTS serve_jobs_created ON serve_jobs (created);
`

// deliveriesSchema is version 2: what a job still owes after its end (its
// webhook, its mail), so that a failed or interrupted delivery is tried
// again, after a restart too.
const deliveriesSchema = `
ALTER TABLE serve_jobs ADD COLUMN pending TEXT NOT NULL DEFAULT ''; -- deliveries owed, comma-separated: webhook, mail
ALTER TABLE serve_jobs ADD COLUMN delivery_error TEXT;             -- why the last attempt failed
`

// filesSchema is version 3: what became of each file of a job, its
// client file names for search, whether retention removed its files, and
// an index for one user's history. Rows written before it get their
// names from the request; their files' states too when the job's state
// tells them (done: all done, pending: all queued). A failed or cancelled
// job's row says nothing of which file failed, so its files stay empty
// (Job.Files nil): a page shows Request.Files without states then.
const filesSchema = `
ALTER TABLE serve_jobs ADD COLUMN files TEXT NOT NULL DEFAULT '';     -- JSON: []FileState
ALTER TABLE serve_jobs ADD COLUMN names TEXT NOT NULL DEFAULT '';     -- the client file names, one a line, for search
ALTER TABLE serve_jobs ADD COLUMN expired INTEGER NOT NULL DEFAULT 0; -- retention removed its files, the record stays
CREATE INDEX IF NOT EXISTS serve_jobs_owner ON serve_jobs (owner, created);
UPDATE serve_jobs SET names = coalesce((SELECT group_concat(f.value ->> '$.name', char(10) ORDER BY f.key)
	FROM json_each(serve_jobs.request, '$.files') AS f), '')
	WHERE json_valid(request);
UPDATE serve_jobs SET files = (SELECT json_group_array(json_object('name', coalesce(f.value ->> '$.name', ''),
		'state', CASE serve_jobs.state WHEN 'done' THEN 'done' ELSE 'queued' END) ORDER BY f.key)
	FROM json_each(serve_jobs.request, '$.files') AS f)
	WHERE json_valid(request) AND state IN ('done', 'queued', 'running') AND json_array_length(request, '$.files') > 0;
`

// DB is what Store needs of the journal (*journal.Journal has it).
type DB interface {
	Migrate(ctx context.Context, pkg string, migrations []string) error
	Write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// State is where a job is.
type State string

// The states of a job. Queued and Running jobs are pending: a server
// starting again runs them (again).
const (
	Queued    State = "queued"
	Running   State = "running"
	Done      State = "done"
	Failed    State = "failed"
	Cancelled State = "cancelled"
)

// Partial is no job's recorded state but an outcome (Job.Outcome) and a
// filter (Query.State): a job recorded Done some of whose files failed.
// A page's job keeps the PDFs of the files that converted, so it is
// done; a person must still see that files failed, and find it among
// the failures.
const Partial State = "partial"

// Outcome is j's state as a person should read it: Partial for a done
// job with a failed file, else its State.
func (j *Job) Outcome() State {
	if j.State == Done && j.FailedFiles() > 0 {
		return Partial
	}
	return j.State
}

// FailedFiles is how many of j's files failed.
func (j *Job) FailedFiles() int {
	n := 0
	for _, f := range j.Files {
		if f.State == FileFailed {
			n++
		}
	}
	return n
}

// Final says whether nothing more happens to a job in state s.
func (s State) Final() bool { return s == Done || s == Failed || s == Cancelled }

// File is an uploaded file: Stored is its name in the job's directory
// (calq's, never the client's), Name the client's file name, for replies.
type File struct {
	Name   string `json:"name"`
	Stored string `json:"stored"`
	Size   int64  `json:"size"`
}

// Request is what a job was asked: its files, in the order they are
// converted and merged, and the route's options as the server encoded
// them.
type Request struct {
	Files    []File          `json:"files"`
	Options  json.RawMessage `json:"options,omitempty"`
	Webhook  json.RawMessage `json:"webhook,omitempty"`
	Trace    string          `json:"trace,omitempty"`
	Filename string          `json:"filename,omitempty"` // Gotenberg-Output-Filename
}

// Result is what a job made: a file in the job's directory, its type
// and the name it is downloaded under.
type Result struct {
	Path        string   `json:"path"`
	ContentType string   `json:"content_type"`
	Name        string   `json:"name"`
	Files       []string `json:"files,omitempty"` // the PDFs inside, for a zip
}

// Job is one accepted request.
type Job struct {
	ID       string
	Owner    string
	Route    string
	Class    sched.Class
	State    State
	Sync     bool
	Created  time.Time
	Started  time.Time
	Finished time.Time
	Request  Request
	Result   *Result
	Error    string
	Status   int
	// Pending are the deliveries the job still owes ("webhook", "mail"),
	// DeliveryError why the last attempt failed.
	Pending       []string
	DeliveryError string
	// Files is what became of each file of the request, in its order;
	// nil for a job recorded before calq kept it (see filesSchema).
	Files []FileState
	// Expired says that retention removed the job's files (uploads and
	// result); the record stays, Result naming what was deleted.
	Expired bool
	// Crashes counts the times the job was running when its server died.
	Crashes int
}

// The states of a file of a job (FileState.State).
const (
	FileQueued     = "queued"
	FileConverting = "converting"
	FileDone       = "done"
	FileFailed     = "failed"
	FileSkipped    = "skipped"
	FileCancelled  = "cancelled"
)

// FileState is what became of one file of a job: Name is the client's
// file name, State one of FileQueued..FileSkipped, Reason why it failed
// or was skipped.
type FileState struct {
	Name   string `json:"name"`
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// ErrNotFound is returned for a job id that is not in the store, or is
// another user's.
var ErrNotFound = errors.New("no such job")

// Store is the table of jobs. It is safe for concurrent use.
type Store struct {
	db  DB
	now func() time.Time
}

// Open returns the jobs of the journal db, creating the table if need be.
func Open(ctx context.Context, db DB) (*Store, error) {
	if err := db.Migrate(ctx, "serve/jobs", []string{schema, deliveriesSchema, filesSchema, crashesSchema}); err != nil {
		return nil, err
	}
	return &Store{db: db, now: time.Now}, nil
}

// Add records a new job, queued. Unless j.Files is set already, it fills
// it with one queued FileState per file of the request.
func (s *Store) Add(ctx context.Context, j *Job) error {
	req, err := json.Marshal(j.Request)
	if err != nil {
		return fmt.Errorf("record job %s: %w", j.ID, err)
	}
	names := make([]string, len(j.Request.Files))
	for i, f := range j.Request.Files {
		names[i] = f.Name
	}
	if j.Files == nil {
		for _, n := range names {
			j.Files = append(j.Files, FileState{Name: n, State: FileQueued})
		}
	}
	files, err := filesText(j.Files)
	if err != nil {
		return fmt.Errorf("record job %s: %w", j.ID, err)
	}
	if j.Created.IsZero() {
		j.Created = s.now()
	}
	j.State = Queued
	err = s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := journal.Exec(ctx, tx, `INSERT INTO serve_jobs (id, owner, route, class, state, sync, created, request,
			files, names) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, j.ID, j.Owner, j.Route, int(j.Class), string(j.State),
			j.Sync, sqltime.Text(j.Created), string(req), files, strings.Join(names, "\n"))
		return err
	})
	if err != nil {
		return fmt.Errorf("record job %s: %w", j.ID, err)
	}
	return nil
}

// Start marks a queued job running; it returns false when the job is
// no longer queued (cancelled, or gone).
func (s *Store) Start(ctx context.Context, id string) (bool, error) {
	n, err := s.exec(ctx, `UPDATE serve_jobs SET state = ?, started = ? WHERE id = ? AND state IN (?, ?)`,
		string(Running), sqltime.Text(s.now()), id, string(Queued), string(Running))
	if err != nil {
		return false, fmt.Errorf("start job %s: %w", id, err)
	}
	return n > 0, nil
}

// Finish records a pending job's end: Done with its result, or Failed or
// Cancelled with an error and its HTTP status. A job that is final
// already is left as it is (false).
func (s *Store) Finish(ctx context.Context, id string, st State, res *Result, msg string, status int) (bool, error) {
	var resJSON any
	if res != nil {
		b, err := json.Marshal(res)
		if err != nil {
			return false, fmt.Errorf("finish job %s: %w", id, err)
		}
		resJSON = string(b)
	}
	n, err := s.exec(ctx, `UPDATE serve_jobs SET state = ?, finished = ?, result = ?, error = ?, status = ?
		WHERE id = ? AND state IN (?, ?)`, string(st), sqltime.Text(s.now()), resJSON, msg, status, id,
		string(Queued), string(Running))
	if err != nil {
		return false, fmt.Errorf("finish job %s: %w", id, err)
	}
	return n > 0, nil
}

// SetPending records the deliveries job id still owes (none: all done)
// and why the last attempt failed ("" when it did not).
func (s *Store) SetPending(ctx context.Context, id string, pending []string, failure string) error {
	var f any
	if failure != "" {
		f = failure
	}
	if _, err := s.exec(ctx, `UPDATE serve_jobs SET pending = ?, delivery_error = ? WHERE id = ?`,
		strings.Join(pending, ","), f, id); err != nil {
		return fmt.Errorf("record job %s's deliveries: %w", id, err)
	}
	return nil
}

// Undelivered returns the final jobs that still owe a delivery, oldest
// first.
func (s *Store) Undelivered(ctx context.Context) ([]Job, error) {
	js, err := s.query(ctx, `SELECT `+columns+` FROM serve_jobs WHERE pending != '' AND state IN (?, ?, ?) ORDER BY created, id`,
		string(Done), string(Failed), string(Cancelled))
	if err != nil {
		return nil, fmt.Errorf("read undelivered jobs: %w", err)
	}
	return js, nil
}

// SetFiles records what became of each file of job id.
func (s *Store) SetFiles(ctx context.Context, id string, files []FileState) error {
	text, err := filesText(files)
	if err != nil {
		return fmt.Errorf("record job %s's files: %w", id, err)
	}
	n, err := s.exec(ctx, `UPDATE serve_jobs SET files = ? WHERE id = ?`, text, id)
	if err == nil && n == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("record job %s's files: %w", id, err)
	}
	return nil
}

// filesText is the files column of fs: "" for none.
func filesText(fs []FileState) (string, error) {
	if len(fs) == 0 {
		return "", nil
	}
	b, err := json.Marshal(fs)
	return string(b), err
}

// Expire records that retention removed job id's files. The record
// stays, with its result, so that the history can name what was deleted.
func (s *Store) Expire(ctx context.Context, id string) error {
	n, err := s.exec(ctx, `UPDATE serve_jobs SET expired = 1 WHERE id = ?`, id)
	if err == nil && n == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("expire job %s: %w", id, err)
	}
	return nil
}

// Forget removes the records of the expired jobs created before t (what
// the history and the log no longer show) and returns how many.
func (s *Store) Forget(ctx context.Context, t time.Time) (int64, error) {
	n, err := s.exec(ctx, `DELETE FROM serve_jobs WHERE expired = 1 AND created < ?`, sqltime.Text(t))
	if err != nil {
		return 0, fmt.Errorf("forget jobs created before %s: %w", t.UTC().Format(time.RFC3339), err)
	}
	return n, nil
}

// Delete removes a job's record.
func (s *Store) Delete(ctx context.Context, id string) error {
	if _, err := s.exec(ctx, `DELETE FROM serve_jobs WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete job %s: %w", id, err)
	}
	return nil
}

func (s *Store) exec(ctx context.Context, q string, args ...any) (int64, error) {
	var n int64
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := journal.Exec(ctx, tx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, err // n is the writer's until Write returns nil
	}
	return n, nil
}

const columns = `id, owner, route, class, state, sync, created, started, finished, request, result, error, status,
	pending, delivery_error, files, expired, crashes`

// Get returns job id of owner; any owner's when owner is "*". Another
// owner's job is ErrNotFound, like a job that does not exist.
func (s *Store) Get(ctx context.Context, owner, id string) (Job, error) {
	js, err := s.query(ctx, `SELECT `+columns+` FROM serve_jobs WHERE id = ? AND (? = '*' OR owner = ?)`, id, owner, owner)
	if err != nil {
		return Job{}, fmt.Errorf("read job %s: %w", id, err)
	}
	if len(js) == 0 {
		return Job{}, ErrNotFound
	}
	return js[0], nil
}

// Pending returns the queued and running jobs, oldest first: what a
// server starting again has to run.
func (s *Store) Pending(ctx context.Context) ([]Job, error) {
	js, err := s.query(ctx, `SELECT `+columns+` FROM serve_jobs WHERE state IN (?, ?) ORDER BY created, id`,
		string(Queued), string(Running))
	if err != nil {
		return nil, fmt.Errorf("read pending jobs: %w", err)
	}
	return js, nil
}

// Before returns the jobs created before t that are not expired, oldest
// first: what retention removes (or expires).
func (s *Store) Before(ctx context.Context, t time.Time) ([]Job, error) {
	js, err := s.query(ctx, `SELECT `+columns+` FROM serve_jobs WHERE created < ? AND expired = 0 ORDER BY created`,
		sqltime.Text(t))
	if err != nil {
		return nil, fmt.Errorf("read expired jobs: %w", err)
	}
	return js, nil
}

// List returns owner's jobs (everyone's for "*"), newest first, at most
// limit.
func (s *Store) List(ctx context.Context, owner string, limit int) ([]Job, error) {
	js, err := s.query(ctx, `SELECT `+columns+` FROM serve_jobs WHERE (? = '*' OR owner = ?)
		ORDER BY created DESC, id DESC LIMIT ?`, owner, owner, limit)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return js, nil
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]Job, error) {
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var js []Job
	for rows.Next() {
		j, err := scan(rows)
		if err != nil {
			return nil, err
		}
		js = append(js, j)
	}
	return js, rows.Err()
}

func scan(rows *sql.Rows) (Job, error) {
	var j Job
	var class int
	var state, req string
	var created, started, finished, res, msg, derr sql.NullString
	var pending, files string
	if err := rows.Scan(&j.ID, &j.Owner, &j.Route, &class, &state, &j.Sync, &created, &started, &finished,
		&req, &res, &msg, &j.Status, &pending, &derr, &files, &j.Expired, &j.Crashes); err != nil {
		return j, err
	}
	if files != "" {
		if err := json.Unmarshal([]byte(files), &j.Files); err != nil {
			return j, fmt.Errorf("job %s: files: %w", j.ID, err)
		}
	}
	j.Class, j.State, j.Error, j.DeliveryError = sched.Class(class), State(state), msg.String, derr.String
	if pending != "" {
		j.Pending = strings.Split(pending, ",")
	}
	var err error
	if j.Created, err = sqltime.Parse(created); err != nil {
		return j, fmt.Errorf("job %s: %w", j.ID, err)
	}
	if j.Started, err = sqltime.Parse(started); err != nil {
		return j, fmt.Errorf("job %s: %w", j.ID, err)
	}
	if j.Finished, err = sqltime.Parse(finished); err != nil {
		return j, fmt.Errorf("job %s: %w", j.ID, err)
	}
	if err := json.Unmarshal([]byte(req), &j.Request); err != nil {
		return j, fmt.Errorf("job %s: request: %w", j.ID, err)
	}
	if res.Valid && res.String != "" {
		j.Result = new(Result)
		if err := json.Unmarshal([]byte(res.String), j.Result); err != nil {
			return j, fmt.Errorf("job %s: result: %w", j.ID, err)
		}
	}
	return j, nil
}
