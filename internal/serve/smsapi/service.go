package smsapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
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

// Service is SMS over HTTP. Its methods are safe for concurrent use.
type Service struct {
	opts Options
}

// New opens (creating or upgrading) the Service's table in o.Journal.
func New(ctx context.Context, o Options) (*Service, error) {
	return nil, errors.New("smsapi: not built yet")
}

// Send checks r against u's rights, rate and quota and the recipients
// and text, and records one message per recipient in the outbox (and
// its push target in the Service's table) before it returns; nothing is
// recorded when any check fails.
func (s *Service) Send(ctx context.Context, u users.User, r Request) ([]Accepted, error) {
	return nil, errors.New("smsapi: not built yet")
}

// Get returns message id if u may see it (its sender, or an
// administrator); ErrNotFound otherwise.
func (s *Service) Get(ctx context.Context, u users.User, id int64) (Message, error) {
	return Message{}, errors.New("smsapi: not built yet")
}

// List returns u's messages (an administrator's: everyone's) that f
// selects, newest first.
func (s *Service) List(ctx context.Context, u users.User, f Filter) (Page[Message], error) {
	return Page[Message]{}, errors.New("smsapi: not built yet")
}

// Cancel cancels message id if no part of it is with a modem yet
// (ErrNotPending otherwise) and returns it as it is then.
func (s *Service) Cancel(ctx context.Context, u users.User, id int64) (Message, error) {
	return Message{}, errors.New("smsapi: not built yet")
}

// Inbox returns the received messages addressed to u's numbers (an
// administrator's: all), newest first.
func (s *Service) Inbox(ctx context.Context, u users.User, f Filter) (Page[Inbound], error) {
	return Page[Inbound]{}, errors.New("smsapi: not built yet")
}

// Wake tells the push loop that the outbox or the inbox changed (a
// daemon in the same process received a status report or a message),
// so that it reads them now rather than at its next PollEvery.
func (s *Service) Wake() {}

// Run reads the outbox and the inbox for what the Service owes (status
// reports, final states, received messages) and delivers it, until ctx
// ends; what is owed is in the journal first, so a restart delivers it.
func (s *Service) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// Check and Text let conversion jobs send an SMS when they end
// (serve.Texter): Check when the request is accepted, Text when the job
// ends.
func (s *Service) Check(ctx context.Context, u users.User, to []string) error {
	return errors.New("smsapi: not built yet")
}

// Text sends text to the recipients to on behalf of u.
func (s *Service) Text(ctx context.Context, u users.User, to []string, text string) error {
	return errors.New("smsapi: not built yet")
}

// Modems returns the modems the daemons hold, as they last saw them,
// for the monitoring page.
func (s *Service) Modems(ctx context.Context) ([]sms.DaemonModem, error) {
	return sms.DaemonModems(ctx, s.opts.Journal)
}

// Queue counts the outbox and the inbox, for the monitoring page.
func (s *Service) Queue(ctx context.Context) (store.Counts, error) {
	return store.Counts{}, errors.New("smsapi: not built yet")
}

func (s *Service) handleSend(w http.ResponseWriter, r *http.Request)   {}
func (s *Service) handleList(w http.ResponseWriter, r *http.Request)   {}
func (s *Service) handleInbox(w http.ResponseWriter, r *http.Request)  {}
func (s *Service) handleGet(w http.ResponseWriter, r *http.Request)    {}
func (s *Service) handleCancel(w http.ResponseWriter, r *http.Request) {}
