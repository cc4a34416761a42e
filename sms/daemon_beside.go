package sms

import (
	"context"
	"errors"
	"fmt"

	"calq/internal/pgdb"
)

// BesideOptions are the options of DaemonBeside.
type BesideOptions struct {
	DB     string        // the database, as for Open
	Open   OpenOptions   // Engine is implied
	Daemon DaemonOptions // Journal, Store and Feed are the stores'
	// Name, when set, prefixes the daemon's errors ("worker: sms"),
	// which the caller could not tell from run's once joined.
	Name string
}

// DaemonBeside opens the stores of o.DB and runs the daemon on them
// (Stores.Daemon) beside run, other work of the caller, until both end;
// the first to fail cancels the other's context. A nil run leaves the
// daemon alone. The errors of both are joined, the daemon's first.
func DaemonBeside(ctx context.Context, o BesideOptions, run func(context.Context) error) error {
	o.Open.Engine = true
	s, err := Open(ctx, o.DB, o.Open)
	if err != nil {
		return err
	}
	defer s.Close()
	daemon := func(ctx context.Context) error {
		err := s.Daemon(ctx, o.Daemon)
		if err != nil && o.Name != "" {
			return fmt.Errorf("%s: %w", o.Name, err)
		}
		return err
	}
	if run == nil {
		return daemon(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The daemon's error comes first, whichever side ended first: the
	// other side's is most often only that it was stopped.
	side := func(f func(context.Context) error, errs chan<- error) {
		err := f(ctx)
		cancel()
		errs <- err
	}
	derr, rerr := make(chan error, 1), make(chan error, 1)
	go side(daemon, derr)
	go side(run, rerr)
	return errors.Join(<-derr, <-rerr)
}

// QuietOutage drops o's warnings about an outage of the database while
// link reports one (the store's reads and writes tell it): they would
// repeat its line every second.
func QuietOutage(link *pgdb.Link, o *DaemonOptions) {
	quiet := func(warn func(error)) func(error) {
		if warn == nil {
			return nil
		}
		return func(err error) {
			if !link.Down() || !pgdb.Transient(err) {
				warn(err)
			}
		}
	}
	o.Warn, o.Recv.Warn = quiet(o.Warn), quiet(o.Recv.Warn)
}
