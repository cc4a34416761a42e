package jobs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"calq/internal/sqltime"
)

// Query selects jobs for a history or the administrator's log. Its zero
// value but Owner is "everything, newest 50 first".
type Query struct {
	// Owner is the user whose jobs are read, "*" for everyone's. "" is
	// the owner of jobs sent without authentication, not a wildcard.
	Owner string
	// State keeps the jobs in that state; "" any. Done keeps the done
	// jobs whose every file converted, Partial those with a failed file,
	// and Failed the jobs that failed and the Partial ones: every job
	// with a failure.
	State State
	// Since and Until keep the jobs created in [Since, Until); a zero
	// bound is open.
	Since, Until time.Time
	// Text keeps the jobs of which a client file name or the error
	// contains it, in any case. The case folding is SQLite LIKE's: ASCII
	// letters only ("É" does not find "é"). % and _ are literal.
	Text string
	// Offset skips that many jobs; Limit returns at most that many:
	// DefaultLimit when 0 or less, never more than MaxLimit.
	Offset, Limit int
}

// The page sizes of Query.
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// Page is one page of a Query's jobs, newest first, and how many jobs
// match in all.
type Page struct {
	Jobs  []Job
	Total int // matching, ignoring Offset and Limit
}

// Query returns the page of jobs q asks for, newest first (created, then
// id, descending). It costs two reads: the page and the count, each a
// scan of the matching rows (of owner's through the index on owner and
// created).
func (s *Store) Query(ctx context.Context, q Query) (Page, error) {
	where, args := q.where()
	var p Page
	row, err := s.db.Query(ctx, `SELECT count(*) FROM serve_jobs`+where, args...)
	if err != nil {
		return p, fmt.Errorf("count jobs: %w", err)
	}
	defer row.Close()
	if row.Next() {
		err = row.Scan(&p.Total)
	}
	if err == nil {
		err = row.Err()
	}
	if err != nil {
		return p, fmt.Errorf("count jobs: %w", err)
	}
	limit, offset := q.page()
	p.Jobs, err = s.query(ctx, `SELECT `+columns+` FROM serve_jobs`+where+
		` ORDER BY created DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return p, fmt.Errorf("query jobs: %w", err)
	}
	return p, nil
}

// page is q's LIMIT and OFFSET: a Limit of 0 (or less) is DefaultLimit,
// one over MaxLimit MaxLimit; a negative Offset 0.
func (q Query) page() (limit, offset int) {
	limit = q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	return min(limit, MaxLimit), max(q.Offset, 0)
}

// where is q's WHERE clause ("" for all jobs) and its arguments.
func (q Query) where() (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if q.Owner != "*" {
		add("owner = ?", q.Owner)
	}
	switch q.State {
	case "":
	case Done:
		add("state = ? AND files NOT LIKE ?", string(Done), anyFileFailed)
	case Partial:
		add("state = ? AND files LIKE ?", string(Done), anyFileFailed)
	case Failed:
		add("(state = ? OR state = ? AND files LIKE ?)", string(Failed), string(Done), anyFileFailed)
	default:
		add("state = ?", string(q.State))
	}
	if !q.Since.IsZero() {
		add("created >= ?", sqltime.Text(q.Since))
	}
	if !q.Until.IsZero() {
		add("created < ?", sqltime.Text(q.Until))
	}
	if q.Text != "" {
		pat := "%" + likeEscaper.Replace(q.Text) + "%"
		add(`(names LIKE ? ESCAPE '\' OR coalesce(error, '') LIKE ? ESCAPE '\')`, pat, pat)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// anyFileFailed finds a failed file in the files column, JSON that
// encoding/json wrote: a quote inside a name or a reason is escaped
// (\"), so only a FileState's own state field reads "state":"failed".
const anyFileFailed = `%"state":"` + FileFailed + `"%`

// likeEscaper makes a text literal in a LIKE pattern with ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
