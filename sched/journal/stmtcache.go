package journal

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// The journal's statement cache. SQLite compiles a statement's text
// into a program before it runs it; a query run as text (ExecContext,
// QueryContext) is compiled again every time, which cost calq serve more
// per conversion than running them. Statements run by text (the
// journal's own that are not in stmtSQL, those of the packages writing
// through Write and Update with Exec, and the reads of Query, QueryRow
// and States) are therefore prepared once, on first use, and kept until
// Close.

// maxCached bounds the statements the cache keeps: the texts are the
// code's constants, a few dozen; one built from data (which should not
// happen) would otherwise be kept for ever. Beyond it, texts run
// uncached.
const maxCached = 256

// stmtCache holds the journal's prepared statements by text.
type stmtCache struct {
	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	closed bool
}

// get returns query prepared on db, preparing it the first time; nil
// (and no error) when the cache is full or closed.
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[query]; ok || c.closed || len(c.stmts) >= maxCached {
		return s, nil
	}
	s, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = s
	return s, nil
}

// close closes the statements; later gets return nil.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.Close())
	}
	c.stmts = nil
	return errors.Join(errs...)
}

// cached returns query as a statement of t's transaction, prepared once
// for the journal and once for t (a transaction runs many writers'
// requests).
func (t *txn) cached(query string) (*sql.Stmt, error) {
	if s, ok := t.byText[query]; ok {
		return s, nil
	}
	s, err := t.j.cache.get(t.ctx, t.j.db, query)
	if err != nil || s == nil {
		return nil, err
	}
	s = t.tx.StmtContext(t.ctx, s)
	if t.byText == nil {
		t.byText = map[string]*sql.Stmt{}
	}
	t.byText[query] = s
	return s, nil
}

// exec runs query in t with its cached statement.
func (t *txn) exec(query string, args ...any) (sql.Result, error) {
	s, err := t.cached(query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return t.tx.ExecContext(t.ctx, query, args...)
	}
	return s.ExecContext(t.ctx, args...)
}

// queryRow runs query in t with its cached statement.
func (t *txn) queryRow(query string, args ...any) *sql.Row {
	s, err := t.cached(query)
	if err != nil || s == nil {
		// A failed preparation fails the query the same way again.
		return t.tx.QueryRowContext(t.ctx, query, args...)
	}
	return s.QueryRowContext(t.ctx, args...)
}

// query runs a read-only query on the journal's connections, with the
// cached statement for it.
func (j *Journal) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := j.cache.get(ctx, j.db, query)
	switch {
	case err != nil:
		return nil, err
	case s == nil:
		return j.db.QueryContext(ctx, query, args...)
	}
	return s.QueryContext(ctx, args...)
}

// queryRow is query for one row.
func (j *Journal) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := j.cache.get(ctx, j.db, query)
	if err != nil || s == nil {
		// A failed preparation fails the query the same way again.
		return j.db.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

// txnKey is the context key under which Write and Update hand their
// functions the writer's transaction, for Exec.
type txnKey struct{}

// Exec runs query in tx as tx.ExecContext does. Inside a function given
// to Write or Update, with the ctx and tx it was given, it runs the
// journal's prepared statement for query, prepared once and kept until
// Close: writes on a hot path cost their run, not a compilation each.
// Given any other ctx or tx (a fake's), it is tx.ExecContext.
func Exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if t, ok := ctx.Value(txnKey{}).(*txn); ok && t.tx == tx {
		return t.exec(query, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}
