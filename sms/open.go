package sms

import (
	"context"
	"errors"

	"calq/internal/dburl"
	"calq/sched/journal"
	"calq/sms/store"
)

// OpenOptions say how Open opens what SMS keeps. StateDir, Engine, PG,
// Warn and Forwarded matter only for a shared database (postgres://).
type OpenOptions struct {
	// StateDir is this machine's state directory, where it keeps a
	// journal per shared database (StatePath); "" when there is none (no
	// home directory): journal.Open then says so.
	StateDir string
	// Engine also opens that journal, for a sending engine (a daemon);
	// else Stores.Journal is nil on a shared database.
	Engine bool
	// PG says whether to wait for a server that is down, and who hears
	// of its outages.
	PG store.PGOptions
	// Warn hears what could not be forwarded from the spool (it stays
	// spooled). Dropped when nil.
	Warn func(error)
	// Forwarded hears of the spooled messages forwarded to the outbox.
	Forwarded func(Forwarded)
}

// Stores are what SMS keeps at a database: the journal the engine runs on
// and the outbox and inbox. Close them when done.
type Stores struct {
	Journal *journal.Journal // nil on a shared database unless OpenOptions.Engine
	Store   *store.Store

	db    string
	o     OpenOptions
	close func() error
}

// Open opens what SMS keeps at db. With a journal file: the journal and
// the store in it. With a shared database (postgres://): the shared
// outbox and inbox there and, with o.Engine, this machine's journal for
// it (StatePath). Either way it then forwards what Spool kept on this
// machine while the server was down, to o.Forwarded and o.Warn; what it
// could not forward stays spooled. It waits for a server that is down
// only when o.PG.Wait.
func Open(ctx context.Context, db string, o OpenOptions) (*Stores, error) {
	if o.Warn == nil {
		o.Warn = func(error) {}
	}
	s := &Stores{db: db, o: o}
	if !dburl.IsPostgres(db) {
		jn, err := journal.Open(ctx, db, journal.Options{})
		if err != nil {
			return nil, err
		}
		st, err := store.Open(ctx, jn)
		if err != nil {
			jn.Close()
			return nil, err
		}
		s.Journal, s.Store, s.close = jn, st, jn.Close
		return s, nil
	}
	pg, err := store.OpenPG(ctx, db, o.PG)
	if err != nil {
		return nil, err
	}
	if s.Store, err = store.Open(ctx, pg); err != nil {
		pg.Close()
		return nil, dburl.Wrap("open", db, err)
	}
	s.close = pg.Close
	if o.Engine {
		if s.Journal, err = journal.Open(ctx, StatePath(o.StateDir, db), journal.Options{}); err != nil {
			pg.Close()
			return nil, err
		}
		s.close = func() error { return errors.Join(s.Journal.Close(), pg.Close()) }
	}
	if err := s.forward(ctx); err != nil {
		o.Warn(err)
	}
	return s, nil
}

// Close closes the journal and the store.
func (s *Stores) Close() error { return s.close() }

// Feed is a running daemon's DaemonOptions.Feed: what Spool keeps on
// this machine during a later outage is forwarded once the database
// answers again, not only at the next Open.
func (s *Stores) Feed(ctx context.Context) error {
	if s.o.PG.Link.Down() {
		return nil // the spool waits for the store's next success
	}
	return s.forward(ctx)
}

// Daemon runs Daemon on s: o's Journal, Store and Feed are s's, and its
// warnings of a database outage are dropped while o.PG.Link reports one
// (QuietOutage).
func (s *Stores) Daemon(ctx context.Context, o DaemonOptions) error {
	QuietOutage(s.o.PG.Link, &o)
	o.Journal, o.Store, o.Feed = s.Journal, s.Store, s.Feed
	return Daemon(ctx, o)
}
