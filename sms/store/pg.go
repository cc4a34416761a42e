package store

import (
	"calq/internal/dburl"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// PG is a DB on PostgreSQL, for an outbox and inbox that several
// machines share. The store's statements are written with SQLite's "?"
// and "?N" parameters; PG rewrites them to "$N". Every write runs in a
// SERIALIZABLE transaction, tried again on a serialization failure, so
// that the store's read-then-write steps behave as under SQLite's single
// writer.
type PG struct {
	db  *sql.DB
	now func() time.Time // the store's clock, for tests; time.Now when nil
}

// Now is the time the store stamps its rows with. Claims and holds use
// the server's clock instead.
func (p *PG) Now() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// OpenPG connects to the PostgreSQL database at url.
func OpenPG(ctx context.Context, url string) (*PG, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, dburl.Wrap("open", url, err)
	}
	db := sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)})
	db.SetMaxOpenConns(8)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, dburl.Wrap("connect to", url, err)
	}
	return &PG{db: db}, nil
}

// Close closes the connections.
func (p *PG) Close() error { return p.db.Close() }

// Migrate brings package pkg's tables to the last of migrations, under an
// advisory lock, recording the version in calq_schema (component
// "sms" for pkg "sms"). A newer version than calq's is refused.
func (p *PG) Migrate(ctx context.Context, pkg string, migrations []string) error {
	return p.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('calq_schema'))`); err != nil {
			return fmt.Errorf("lock schema: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS calq_schema
			(component text PRIMARY KEY, version integer NOT NULL)`); err != nil {
			return fmt.Errorf("create calq_schema: %w", err)
		}
		var v int
		err := tx.QueryRowContext(ctx, `SELECT version FROM calq_schema WHERE component = ?`, pkg).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read schema version: %w", err)
		}
		if v > len(migrations) {
			return fmt.Errorf("%s schema version %d is newer than this calq's (%d)", pkg, v, len(migrations))
		}
		if v == len(migrations) {
			return nil
		}
		for ; v < len(migrations); v++ {
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrate %s schema to version %d: %w", pkg, v+1, err)
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO calq_schema VALUES (?, ?)
			ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`, pkg, v)
		return err
	})
}

// Update runs fn in a SERIALIZABLE transaction and commits it unless fn
// fails; fn runs again, up to 50 times, when PostgreSQL reports a
// serialization failure or a deadlock.
func (p *PG) Update(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	for try := 1; ; try++ {
		err := p.try(ctx, fn)
		var pe *pgconn.PgError
		if err == nil || try == 50 || !errors.As(err, &pe) || (pe.Code != "40001" && pe.Code != "40P01") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(try) * time.Millisecond):
		}
	}
}

func (p *PG) try(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	tx, err := p.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return err
	}
	if err := fn(ctx, tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}

// Write is Update: PostgreSQL has no single writer to group writes in.
func (p *PG) Write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return p.Update(ctx, fn)
}

// Query runs a read.
func (p *PG) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.db.QueryContext(ctx, query, args...)
}

// QueryRow runs a read of one row.
func (p *PG) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return p.db.QueryRowContext(ctx, query, args...)
}

// rebindConnector hands out connections that rewrite parameters.
type rebindConnector struct{ driver.Connector }

func (r rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := r.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return rebindConn{c.(*stdlib.Conn)}, nil
}

// rebindConn is pgx's connection, with "?" and "?N" rewritten to "$N".
type rebindConn struct{ *stdlib.Conn }

func (c rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

// rebind rewrites SQLite's parameters to PostgreSQL's: "?N" becomes "$N",
// and each bare "?" the next number. Quoted strings, quoted names and
// comments are left alone.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '\'', '"':
			j := strings.IndexByte(q[i+1:], c)
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+2])
			i += j + 1
		case '-':
			if strings.HasPrefix(q[i:], "--") {
				j := strings.IndexByte(q[i:], '\n')
				if j < 0 {
					j = len(q) - i
				}
				b.WriteString(q[i : i+j])
				i += j - 1
				continue
			}
			b.WriteByte(c)
		case '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if j > i+1 {
				b.WriteString("$" + q[i+1:j])
				i = j - 1
				continue
			}
			n++
			b.WriteString("$" + strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
