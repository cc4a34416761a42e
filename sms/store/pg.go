package store

import (
	"calq/internal/dburl"
	"calq/internal/pgdb"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
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
	db     *sql.DB
	schema string // calq's schema, first on the connections' search_path
	o      PGOptions
	now    func() time.Time // the store's clock, for tests; time.Now when nil
}

// PGOptions configure OpenPG.
type PGOptions struct {
	// Wait makes OpenPG and Migrate wait for a server that is away (down,
	// starting, unreachable: pgdb.Transient) until ctx ends; without it
	// they fail at once. A wrong password or a missing database fails at
	// once either way.
	Wait bool
	// Link, when set, hears of the outages that OpenPG waits through and
	// that later reads and writes meet (once each when they begin and end).
	Link *pgdb.Link
}

// Now is the time the store stamps its rows with. Claims and holds use
// the server's clock instead.
func (p *PG) Now() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// OpenPG connects to the PostgreSQL database at url; calq's tables live
// in a schema of their own (see pgdb.Configure).
func OpenPG(ctx context.Context, url string, o PGOptions) (*PG, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, dburl.Wrap("open", url, err)
	}
	schema := pgdb.Configure(cfg)
	db := sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)})
	db.SetMaxOpenConns(8)
	p := &PG{db: db, schema: schema, o: o}
	if err := p.retry(ctx, db.PingContext); err != nil {
		db.Close()
		return nil, pgdb.OpenError(url, err)
	}
	return p, nil
}

// retry runs op once, or as pgdb.Retry does when the options say to wait.
func (p *PG) retry(ctx context.Context, op func(context.Context) error) error {
	if p.o.Wait {
		return pgdb.Retry(ctx, p.o.Link, op)
	}
	return op(ctx)
}

// Close closes the connections.
func (p *PG) Close() error { return p.db.Close() }

// Migrate brings package pkg's tables to the last of migrations (see
// pgdb.Migrate), recording the version in calq_schema (component "sms"
// for pkg "sms"). A newer version than calq's is refused.
func (p *PG) Migrate(ctx context.Context, pkg string, migrations []string) error {
	return p.retry(ctx, func(ctx context.Context) error {
		return p.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
			return pgdb.Migrate(ctx, sqlTx{tx}, p.schema, pkg, migrations)
		})
	})
}

// sqlTx is a database/sql transaction as pgdb.Migrate takes it.
type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, query, args...)
	return err
}

func (t sqlTx) QueryRow(ctx context.Context, query string, args ...any) interface{ Scan(...any) error } {
	return t.tx.QueryRowContext(ctx, query, args...)
}

// noted passes err through after telling the link whether the server
// answered.
func (p *PG) noted(err error) error {
	if err == nil {
		p.o.Link.OK()
	} else {
		p.o.Link.Fail(err)
	}
	return err
}

// Update runs fn in a SERIALIZABLE transaction and commits it unless fn
// fails; fn runs again, up to 50 times, when PostgreSQL reports a
// serialization failure or a deadlock.
func (p *PG) Update(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	for try := 1; ; try++ {
		err := p.try(ctx, fn)
		var pe *pgconn.PgError
		if err == nil || try == 50 || !errors.As(err, &pe) || (pe.Code != "40001" && pe.Code != "40P01") {
			return p.noted(err)
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
	rows, err := p.db.QueryContext(ctx, query, args...)
	return rows, p.noted(err)
}

// QueryRow runs a read of one row.
func (p *PG) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	row := p.db.QueryRowContext(ctx, query, args...)
	p.noted(row.Err())
	return row
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
