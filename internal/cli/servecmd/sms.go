package servecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"calq/convert/contacts"
	"calq/internal/cli/base"
	"calq/internal/cli/smscmd"
	"calq/internal/dburl"
	"calq/internal/serve"
	"calq/internal/serve/sendsms"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/sched"
	"calq/sched/journal"
	"calq/sms"
	"calq/sms/store"
)

// smsOpts are calq serve's SMS flags: the daemon's (its modems, none
// when the server only queues) and the API's defaults.
type smsOpts struct {
	Daemon      sms.DaemonOptions
	Rate, Quota int // a user's messages a minute and a day, unless calq users set says
}

// The defaults of --sms-rate and --sms-quota: a person's alerts pass, a
// runaway script is stopped before it empties a prepaid SIM.
const (
	defaultSMSRate  = 20
	defaultSMSQuota = 500
)

// smsFlags are calq serve's SMS flags: calq sms daemon's (smscmd's, read
// the same way) and the API's rate and quota.
func smsFlags() []cli.Flag {
	return append(append(smscmd.DeviceFlags("SMS"), smscmd.DaemonFlags("SMS")...),
		&cli.IntFlag{Name: "sms-rate", Value: defaultSMSRate, Category: "SMS",
			Usage: "SMS a user may send a minute (POST /sms, sendsms, smsTo), unless calq users set NAME says"},
		&cli.IntFlag{Name: "sms-quota", Value: defaultSMSQuota, Category: "SMS",
			Usage: "SMS a user may send a day (UTC), unless calq users set NAME says"})
}

// readSMSOpts reads calq serve's SMS flags.
func readSMSOpts(c *cli.Context) (smsOpts, error) {
	d, err := smscmd.DaemonOptions(c)
	if err != nil {
		return smsOpts{}, err
	}
	o := smsOpts{Daemon: d, Rate: c.Int("sms-rate"), Quota: c.Int("sms-quota")}
	if o.Rate <= 0 || o.Quota <= 0 {
		return o, base.Usagef(c, "--sms-rate %d, --sms-quota %d: want 1 or more", o.Rate, o.Quota)
	}
	return o, nil
}

// holdRetry is how often a server whose modems another calq sms daemon
// holds tries to take them over.
var holdRetry = 30 * time.Second

// smsSide is SMS in calq serve: the stores on the journal or the shared
// outbox, SMS over HTTP on them (smsapi's Service, its pushes running
// from start to stop) and, when the server has modems, the daemon
// holding them in this process from start to stop.
type smsSide struct {
	stores *sms.Stores
	o      smsOpts
	log    *slog.Logger
	svc    *smsapi.Service

	cancel context.CancelFunc
	wg     sync.WaitGroup
	failed chan error // the daemon's error, when it could not hold the modems for another reason than a daemon holding them
}

// openSMS opens what calq sms keeps at db (calq serve's --db): with a
// journal file, its SMS tables, where calq sms send and calq sms daemon
// on the same --db (the same default) find them; with postgres://, the
// shared outbox, and, when the server has modems, this machine's
// journal for it (sms.StatePath).
func openSMS(ctx context.Context, db string, o smsOpts, stderr io.Writer, log *slog.Logger) (*smsSide, error) {
	var link store.PGOptions
	if dburl.IsPostgres(db) {
		link = store.PGOptions{Wait: true, Link: base.DBLink(stderr, "calq serve: sms: ", db)}
	}
	ss, err := sms.Open(ctx, db, sms.OpenOptions{StateDir: base.StateDir(), Engine: len(o.Daemon.Specs) > 0, PG: link,
		Warn:      func(err error) { log.Warn("sms: forward spooled messages", "err", err) },
		Forwarded: func(f sms.Forwarded) { log.Info("sms: " + f.String()) }})
	if err != nil {
		return nil, fmt.Errorf("serve: open the SMS outbox: %w", err)
	}
	o.Daemon.Warn = func(err error) { log.Warn("sms daemon", "err", err) }
	o.Daemon.Recv.Warn, o.Daemon.Events = o.Daemon.Warn, modemEvents(log)
	return &smsSide{stores: ss, o: o, log: log, failed: make(chan error, 1)}, nil
}

// service builds SMS over HTTP on the outbox, its own table in j (calq
// serve's journal), the users' rights in us and numbers in book; its
// pushes go through policy with the conversions' webhooks' retries.
// The in-process daemon wakes its pushes at each change.
func (s *smsSide) service(ctx context.Context, j *journal.Journal, us *users.Store, book *contacts.Book,
	policy *webhook.Policy, push webhook.Options, noPush bool) error {
	// Each message the API queues wakes the daemon of this process,
	// which would otherwise find it only at its next --send-every.
	box := sms.NewQueuing(s.stores.Store)
	svc, err := smsapi.New(ctx, smsapi.Options{Store: box, Journal: j, Rights: us, Book: contacts.Owners{Book: book},
		Policy: policy, NoPush: noPush, Rate: s.o.Rate, Quota: s.o.Quota, Push: push, Log: s.log})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	s.svc, s.o.Daemon.Changed, s.o.Daemon.Queued = svc, svc.Wake, box.Queued()
	return nil
}

// options puts SMS over HTTP in the server's options: calq's JSON API
// and Kannel's sendsms (authenticated as us's users and keys, slowed
// like sign-ins by th), conversion jobs' smsTo, and the pages.
func (s *smsSide) options(so *serve.Options, us *users.Store, th sendsms.Throttle) {
	so.Surfaces = append(so.Surfaces, s.svc, &sendsms.Handler{Sender: s.svc, Users: us, Throttle: th, Log: s.log})
	so.Texter = s.svc.Texts()
	so.SMSPages = s.svc
	so.SMS = s.stores.Store
}

// start runs the pushes and, when the server has modems, the daemon;
// without, it says who sends what the server queues.
func (s *smsSide) start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if s.svc != nil {
		s.wg.Go(func() { s.svc.Run(ctx) })
	}
	if len(s.o.Daemon.Specs) == 0 {
		s.handingOver(ctx)
		return
	}
	s.wg.Go(func() {
		if err := s.hold(ctx); err != nil {
			s.failed <- fmt.Errorf("serve: sms daemon: %w", err)
		}
	})
}

// hold runs the daemon until ctx ends. While another calq sms daemon
// holds the modems, the server only queues (that daemon sends), and
// tries again every holdRetry to take them over.
func (s *smsSide) hold(ctx context.Context) error {
	o := s.o.Daemon
	o.Ready = func() { s.log.Info("sms: holding the modems", "modems", len(o.Specs)) }
	said := false
	for {
		err := s.stores.Daemon(ctx, o)
		if !errors.Is(err, sms.ErrModemHeld) {
			return err
		}
		if !said {
			s.log.Info("sms: another calq sms daemon holds the modems: messages are queued for it; "+
				"this server takes them over when it stops", "detail", err)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(holdRetry):
		}
	}
}

// handingOver logs who sends what a server without modems queues.
func (s *smsSide) handingOver(ctx context.Context) {
	held, err := s.daemonRuns(ctx)
	switch {
	case err != nil:
		s.log.Warn("sms: cannot tell whether a calq sms daemon runs", "err", err)
	case held:
		s.log.Info("sms: no modems of its own: messages are handed to the calq sms daemon that holds the modems")
	default:
		s.log.Info("sms: no modems of its own, and no calq sms daemon runs: messages stay queued until one does " +
			"(calq sms daemon --device DEV, or calq serve --device DEV)")
	}
}

// daemonRuns says whether a daemon holds modems for the server's outbox.
func (s *smsSide) daemonRuns(ctx context.Context) (bool, error) {
	if sh, ok := sms.Store(s.stores.Store).(sms.SharedStore); ok && sms.IsShared(s.stores.Store) {
		hs, err := sh.ModemsHeld(ctx)
		return len(hs) > 0, err
	}
	return sms.DaemonHolds(ctx, s.stores.Journal, nil)
}

// Failed delivers the daemon's error when it stopped for a reason other
// than the server's stop.
func (s *smsSide) Failed() <-chan error { return s.failed }

// stop stops the pushes and the daemon (releasing the modems) and
// closes the stores.
func (s *smsSide) stop() error {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	return s.stores.Close()
}

// modemEvents logs the modems' comings and goings, as calq sms daemon
// prints them.
func modemEvents(log *slog.Logger) func(sched.Event) {
	return func(ev sched.Event) {
		if ev.Job != nil {
			return
		}
		switch ev.Type {
		case sched.EventBackendDown:
			log.Warn("sms: modem down", "modem", ev.Backend, "err", ev.Err)
		case sched.EventBackendUp:
			log.Info("sms: modem up again", "modem", ev.Backend)
		case sched.EventKindDisabled, sched.EventKindEnabled, sched.EventKindKept:
			log.Warn("sms: "+ev.Message, "modem", ev.Backend)
		}
	}
}
