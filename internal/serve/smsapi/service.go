package smsapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/sched/journal"
	"calq/sms"
	"calq/sms/store"
)

// Rights reads a user's SMS rights (*users.Store does).
type Rights interface {
	SMSRights(ctx context.Context, name string) (users.SMSRights, error)
}

// PhoneBook resolves recipients, each a number or a contact name of
// owner's address book, into numbers (*contacts.Book does, through
// Owner).
type PhoneBook interface {
	ResolvePhones(ctx context.Context, owner string, list []string) ([]string, error)
}

// Options configure a Service. Store, Journal and Rights are required.
type Options struct {
	Store   sms.Store        // the outbox and the inbox: the journal's, or a shared PostgreSQL one
	Journal *journal.Journal // the Service's own table; sms.Enqueue's engine jobs
	Rights  Rights
	Book    PhoneBook // nil: numbers only

	// Policy decides which push targets may be reached (the conversions'
	// webhook policy: public addresses plus --webhook-allow).
	Policy *webhook.Policy
	// NoPush refuses a send naming a URL to call (reportUrl, dlr-url)
	// and calls no user's inbound webhook: calq serve --no-webhooks.
	NoPush bool
	// Rate and Quota are the defaults of a user whose rights leave them
	// 0: messages a minute, messages a day (UTC).
	Rate, Quota int
	// PollEvery is how often the outbox and the inbox are read for
	// pushes when Wake is not called (a daemon in another process): 1 s
	// when zero.
	PollEvery time.Duration
	// Push tunes the pushes' retries (webhook's defaults when zero).
	Push webhook.Options
	Now  func() time.Time
	Log  *slog.Logger
}

// Outbox is what the Service needs of Options.Store beyond sms.Store:
// cancelling, counting, and reading the inbox by cursor (*store.Store and
// store.Mem have them).
type Outbox interface {
	sms.Store
	CancelSMS(ctx context.Context, id int64) (bool, error)
	Counts(ctx context.Context) (store.Counts, error)
	InboxEntries(ctx context.Context, f store.InboxFilter) ([]store.InboxEntry, error)
}

// Limits of one request, checked before anything is recorded.
const (
	MaxBody       = 64 << 10 // bytes of a POST /sms body
	MaxRecipients = 100      // recipients of one request
)

// Service is SMS over HTTP. Its methods are safe for concurrent use.
type Service struct {
	opts   Options
	box    Outbox
	sender *webhook.Sender
	wake   chan struct{}
	known  sync.Map // keys of the pushes this Service owed (push.go's owe)

	// What makes a Wake worth a round (push.go's busy): a daemon in
	// this process wakes the Service at each change it makes, several
	// per message, and a round costs reads of the journal that the
	// daemon's writes wait for; rounds of PollEvery run regardless.
	watched  atomic.Int64  // messages still watched, as the last round counted them, plus those sent since
	sends    atomic.Uint64 // sends with a push, so that a round's count never hides a newer one
	inbound  atomic.Bool   // some user has an inbound webhook
	owing    atomic.Bool   // some push is owed
	targetAt time.Time     // when inbound was last read (Run's goroutine only)
}

// New opens (creating or upgrading) the Service's table in o.Journal.
func New(ctx context.Context, o Options) (*Service, error) {
	box, ok := o.Store.(Outbox)
	switch {
	case o.Store == nil || o.Journal == nil || o.Rights == nil:
		return nil, errors.New("smsapi: Store, Journal and Rights are required")
	case !ok:
		return nil, fmt.Errorf("smsapi: the store %T cannot cancel messages or read the inbox by cursor", o.Store)
	}
	if o.PollEvery <= 0 {
		o.PollEvery = time.Second
	}
	if o.Now == nil {
		o.Now = o.Journal.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if err := o.Journal.Migrate(ctx, "smsapi", migrations); err != nil {
		return nil, fmt.Errorf("open the sms api's tables: %w", err)
	}
	s := &Service{opts: o, box: box, sender: webhook.NewSender(o.Policy, o.Push), wake: make(chan struct{}, 1)}
	if err := s.startCursor(ctx); err != nil {
		return nil, err
	}
	if err := s.recoverBindings(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Service) now() time.Time { return s.opts.Now() }

// Wake tells the push loop that the outbox or the inbox changed (a
// daemon in the same process received a status report or a message),
// so that it reads them now rather than at its next PollEvery.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default: // a wake is pending already: it will read everything
	}
}

// Check and Text let conversion jobs send an SMS when they end
// (serve.Texter): Check when the request is accepted, Text when the job
// ends.
func (s *Service) Check(ctx context.Context, u users.User, to []string) error {
	if _, err := s.allowed(ctx, u); err != nil {
		return err
	}
	_, err := s.recipients(ctx, u, to)
	return err
}

// Text sends text to the recipients to on behalf of u.
func (s *Service) Text(ctx context.Context, u users.User, to []string, text string) error {
	_, err := s.Send(ctx, u, Request{To: to, Text: text})
	return err
}

// Modems returns the modems the daemons hold, as they last saw them,
// for the monitoring page.
func (s *Service) Modems(ctx context.Context) ([]sms.DaemonModem, error) {
	return sms.DaemonModems(ctx, s.opts.Journal)
}

// Queue counts the outbox and the inbox, for the monitoring page.
func (s *Service) Queue(ctx context.Context) (store.Counts, error) {
	return s.box.Counts(ctx)
}

// Texts is s as serve.Texter takes it, for the smsTo of conversion jobs
// (serve.Options.Texter = svc.Texts()): Check, and Send of a plain text.
func (s *Service) Texts() Texts { return Texts{s} }

// Texts sends a conversion job's SMS through a Service (see
// Service.Texts).
type Texts struct{ s *Service }

// Check is Service.Check.
func (t Texts) Check(ctx context.Context, u users.User, to []string) error {
	return t.s.Check(ctx, u, to)
}

// Send is Service.Text.
func (t Texts) Send(ctx context.Context, u users.User, to []string, text string) error {
	return t.s.Text(ctx, u, to, text)
}
