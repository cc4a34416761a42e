package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"calq/convert"
	"calq/convert/chromium"
	"calq/convert/lo"
	"calq/convert/pdfpool"
	"calq/internal/serve/fair"
	"calq/internal/serve/form"
	"calq/internal/serve/jobs"
	"calq/internal/serve/monitor"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/sched"
	"calq/sched/history"
	"calq/sched/pgqueue"
	"calq/sms"
	"calq/sms/store"
)

// Options configure a Server. Zero values are the defaults.
type Options struct {
	Data string      // the data directory: uploads and results, one directory per job (required)
	Jobs *jobs.Store // the journal's jobs (required)
	Pool *lo.Pool    // the warm LibreOffice instances (required for office documents)
	// Chromium is the warm pool of headless browsers of the
	// /forms/chromium routes (lazy: no browser starts before their first
	// request); nil: those routes answer 503 saying Chromium is not
	// installed.
	Chromium *chromium.Pool
	Users    Users // nil: no authentication
	// RequireUsers: while Users has no user, every route but /health
	// answers 503 rather than serving anyone (calq serve on an address
	// other than loopback, whose last user was removed).
	RequireUsers bool

	// Profile returns the conversion defaults of a user's profile (its
	// name as the user was given it): the server's config file's
	// [profiles.NAME]. nil: profiles are not applied.
	Profile func(name string) (Task, error)
	// Mail delivers a job's PDFs to the recipients of a mailTo field or
	// a profile's mail_to; nil: mailTo is refused.
	Mail Mailer

	// The browser's pages (page*.go): nil Accounts turns them off.
	Accounts Accounts
	Throttle Throttle // slows repeated failed sign-ins; nil: none
	Contacts Contacts // each user's address book; nil: none
	Profiles Profiles // each user's profiles; nil: none
	// History is where the monitoring page reads the conversions'
	// figures: the journal, or the shared queue (nil: no charts); SMS,
	// the SMS daemon's store in the same database (nil: none).
	History    history.Store
	SMS        monitor.SMSCounter
	SessionTTL time.Duration // how long a sign-in lasts (12 h)
	// Journal records the conversions of convert jobs as calq convert's
	// do (calq history, calq analyze history and the monitoring page read
	// them); nil: not recorded.
	Journal sched.Journal
	// KeepRecords is how long a job's record (its files' names, states
	// and errors; not the files) stays for the history and the log after
	// Keep removed its files (30 days; at least Keep).
	KeepRecords time.Duration

	// PDF does pdfcpu's work of every job in helper processes, held to
	// FileTimeout and to its memory limit; nil: the server starts its
	// own, closed by Stop.
	PDF *pdfpool.Pool

	Limits         form.Limits
	RequestTimeout time.Duration // a synchronous request's time, queue wait included (30 s)
	FileTimeout    time.Duration // one file's conversion (convert.Options.Timeout's default)
	Keep           time.Duration // how long jobs, uploads and results are kept (24 h)
	MaxQueued      int           // files waiting, in all (1000)
	MaxQueuedUser  int           // files waiting, per user (MaxQueued)
	MaxActive      int           // jobs running at once (4 per instance)
	Workers        int           // pdfcpu workers per job (convert's default)
	Webhooks       *webhook.Sender
	WebhookPolicy  *webhook.Policy
	// NoDownloadFrom refuses (400) a request whose downloadFrom field
	// lists URLs: the server fetches nothing on a client's behalf.
	NoDownloadFrom bool
	// WebhookSync: a Gotenberg route asking for a webhook answers 204
	// once the webhook is delivered (or its attempts ended), not at once.
	WebhookSync bool
	Version     string
	Routes      RouteOptions // where the routes are, which are off, /debug
	Log         *slog.Logger
	now         func() time.Time

	// Shared, when set, is the shared queue on PostgreSQL
	// (sched/pgqueue) that calq worker processes and other calq serve
	// processes serve: the office documents, images and PDFs of
	// libreoffice/convert jobs are converted through it, each job a
	// batch of its own (labelled by its id, so a job resumed after a
	// restart collects what was finished meanwhile). Jobs, users,
	// uploads and results stay in Jobs and Data. From Start to Stop the
	// server also serves the queue with Pool, as calq worker does for
	// the convert kinds, two jobs per instance at once. Documents opened
	// with a password, and PDF/A from pdfengines/convert, stay on Pool:
	// a password never goes to the database.
	Shared convert.Shared
	// SharedName is the name the server's worker records in the jobs it
	// runs (calq history groups by it); the host's when empty.
	SharedName string
	// SharedEvents hears what the server's worker does; nil: nothing.
	SharedEvents func(pgqueue.WorkerEvent)

	// Surfaces are the public surfaces kept in packages of their own
	// (SMS over HTTP, Kannel's sendsms): each registers its routes on the
	// server's mux, under the root path, beside the server's own.
	Surfaces []Surface
	// Texter sends a job's SMS when it ends (the smsTo field); nil:
	// smsTo is refused.
	Texter Texter
	// SMSPages is what the SMS page, the address book's phone numbers and
	// the monitoring page's modems read and do; nil: no SMS page.
	SMSPages SMSPages
}

// Surface is a public surface of calq serve in a package of its own. Its
// Register adds its routes to m; auth wraps a handler in the server's
// authentication (API keys, browser sessions, cross-site writes refused),
// which puts the request's user in its context (users.FromContext). A
// route that authenticates by itself (Kannel's username and password)
// is registered without auth.
type Surface interface {
	Register(m *http.ServeMux, auth func(http.Handler) http.Handler)
}

// Texter sends an SMS on a user's behalf: Check, when a request naming
// smsTo is accepted (the user's right to send, the recipients: numbers
// or contact names of the user's address book); Send when its job ends.
type Texter interface {
	Check(ctx context.Context, u users.User, to []string) error
	Send(ctx context.Context, u users.User, to []string, text string) error
}

// Mailer mails results: Check, when a request is accepted, that the
// recipients (contact names or addresses) can be mailed; Send, when its
// job is done. Names are resolved in the address book of owner, the
// job's user ("" when calq serve has no users: the local book).
type Mailer interface {
	Check(ctx context.Context, owner string, to []string) error
	Send(ctx context.Context, owner string, to, files, names []string) error
}

// Users is what the server needs of the users and their keys.
type Users interface {
	Count(ctx context.Context) (int, error)
	Authenticate(ctx context.Context, key string) (users.User, error)
}

// Server is calq serve: Gotenberg's routes and calq's jobs over one warm
// pool. Handler is its HTTP side; Start runs the jobs the journal holds.
type Server struct {
	opts      Options
	instances int
	files     *fair.Gate    // the pool's instances, shared fairly between users
	busy      []atomic.Bool // by instance: converting now
	active    *fair.Gate    // the jobs running at once, chosen fairly
	metrics   *metrics
	mux       http.Handler
	guard     *guard // bounds before authentication (auth.go)

	mu         sync.Mutex
	running    map[string]*run          // jobs of this process not final yet, by id
	delivering map[string]chan struct{} // jobs whose deliveries are under way: closed at their end
	wg         sync.WaitGroup           // their goroutines
	base       context.Context          // the jobs' context: cancelled by Stop after the grace time
	stopping   atomic.Bool              // Stop was called
	cancel     context.CancelFunc

	shared convert.Shared // Options.Shared as the jobs see it (servedQueue); nil without
	worker *sharedWorker  // the server's worker on it, from Start to Stop
	pdf    *pdfpool.Pool  // Options.PDF, or the server's own (ownPDF)
	ownPDF bool
	store  convertStore // the records of Options.Journal, opened once (convert_store.go)
}

// run is a job of this process: its cancellation and its end.
type run struct {
	job     *jobs.Job
	cancel  context.CancelCauseFunc
	done    chan struct{} // closed when the job is final
	files   int           // files done
	started bool          // its turn came
	err     error         // its failure, when done
	states  []jobs.FileState
	changed chan struct{} // closed and replaced when states change: the job's page listens
}

// New returns a server over o's pool, journal and data directory.
func New(o Options) (*Server, error) {
	if o.Data == "" || o.Jobs == nil {
		return nil, errors.New("calq serve: a data directory and a journal are required")
	}
	if err := o.Routes.Check(); err != nil {
		return nil, fmt.Errorf("calq serve: %w", err)
	}
	if o.Shared != nil && o.Pool == nil {
		return nil, errors.New("calq serve: the shared queue needs a LibreOffice pool to serve it")
	}
	if err := os.MkdirAll(filepath.Join(o.Data, "jobs"), 0o700); err != nil {
		return nil, fmt.Errorf("create the data directory: %w", err)
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.Keep <= 0 {
		o.Keep = 24 * time.Hour
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = 1000
	}
	if o.KeepRecords <= 0 {
		o.KeepRecords = 30 * 24 * time.Hour
	}
	o.KeepRecords = max(o.KeepRecords, o.Keep)
	if o.SessionTTL <= 0 {
		o.SessionTTL = 12 * time.Hour
	}
	if o.MaxQueuedUser <= 0 {
		o.MaxQueuedUser = o.MaxQueued
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.now == nil {
		o.now = time.Now
	}
	n := 1
	if o.Pool != nil {
		n = len(o.Pool.Instances())
	}
	if o.MaxActive <= 0 {
		o.MaxActive = defaultMaxActive(n)
	}
	s := &Server{opts: o, instances: n, running: map[string]*run{}, delivering: map[string]chan struct{}{}, busy: make([]atomic.Bool, n),
		pdf: o.PDF}
	if s.pdf == nil {
		s.pdf, s.ownPDF = pdfpool.New(pdfpool.Options{}), true
	}
	s.files = fair.New(fair.Options{Servers: n, MaxWaiting: o.MaxQueued, MaxWaitingPerUser: o.MaxQueuedUser, Now: o.now})
	s.active = fair.New(fair.Options{Servers: o.MaxActive})
	if o.Shared != nil {
		s.shared = servedQueue{o.Shared}
	}
	s.base, s.cancel = context.WithCancel(context.Background())
	s.metrics = newMetrics(s)
	if err := s.routes(); err != nil {
		return nil, err
	}
	return s, nil
}

// Handler is the server's HTTP side.
func (s *Server) Handler() http.Handler { return s.traced(s.mux) }

// Start runs the jobs the journal holds from a server that stopped
// before they were done, oldest first, and starts the retention sweep
// and, with a shared queue, the server's worker on it. First it sweeps
// --data of what a crash left there (sweepLeftovers): it must be called
// before Handler serves any request.
func (s *Server) Start(ctx context.Context) error {
	s.sweepLeftovers(ctx)
	pending, err := s.opts.Jobs.Pending(ctx)
	if err != nil {
		return err
	}
	if s.opts.Shared != nil {
		if err := s.startWorker(); err != nil {
			return err
		}
	}
	for i := range pending {
		j := pending[i]
		if _, err := os.Stat(s.jobDir(j.ID)); err != nil {
			s.opts.Jobs.Finish(ctx, j.ID, jobs.Failed, nil, "its uploads are gone from the data directory", http.StatusInternalServerError)
			continue
		}
		if s.crashedTooOften(ctx, &j) {
			continue
		}
		res, err := s.files.Reserve(j.Owner, len(j.Request.Files))
		if err != nil {
			res = nil // jobs accepted before are run whatever the bounds
		}
		s.launch(&j, res)
	}
	s.opts.Log.Info("jobs resumed", "count", len(pending))
	s.wg.Add(1)
	go s.sweep()
	return nil
}

// maxCrashes is how many deaths of calq serve while a job ran end the
// job: its files may be what kills it.
const maxCrashes = 2

// errCrashed ends a job calq serve died running maxCrashes times.
var errCrashed = &jobError{status: http.StatusInternalServerError, msg: fmt.Sprintf(
	"calq serve died %d times while converting this job (killed, or crashed); it is not run again", maxCrashes)}

// crashedTooOften counts the death of the server that left job j running
// (a stop puts its running jobs back in the queue) and, at the
// maxCrashes-th, ends the job failed, delivering its end as any other.
func (s *Server) crashedTooOften(ctx context.Context, j *jobs.Job) bool {
	if j.State != jobs.Running {
		return false
	}
	n, err := s.opts.Jobs.Crashed(ctx, j.ID)
	if err != nil {
		s.opts.Log.Error("record a crash", "job", j.ID, "err", err)
	}
	if n < maxCrashes {
		return false
	}
	r := &run{job: j, done: make(chan struct{}), changed: make(chan struct{}), states: fileStates(j)}
	defer close(r.done)
	s.end(r, nil, errCrashed)
	return true
}

// Stop stops the jobs: it waits up to grace for the running ones, then
// cancels them; queued and cancelled-by-stop jobs stay pending in the
// journal for the next start.
func (s *Server) Stop(grace time.Duration) {
	s.stopping.Store(true)
	done := make(chan struct{})
	go func() {
		s.mu.Lock()
		runs := make([]*run, 0, len(s.running))
		for _, r := range s.running {
			runs = append(runs, r)
		}
		s.mu.Unlock()
		for _, r := range runs {
			s.mu.Lock()
			started := r.started
			s.mu.Unlock()
			if started {
				<-r.done
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
	}
	s.cancel()
	s.wg.Wait()
	s.stopWorker()
	if s.ownPDF {
		s.pdf.Close()
	}
}

// newID is a job id: 128 random bits, so ids cannot be guessed.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Server) jobDir(id string) string { return filepath.Join(s.opts.Data, "jobs", id) }

// launch runs job j in a goroutine of its own; res is the room its files
// hold in the queue.
func (s *Server) launch(j *jobs.Job, res *fair.Reservation) *run {
	ctx, cancel := context.WithCancelCause(s.base)
	r := &run{job: j, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{})}
	r.states = fileStates(j)
	s.mu.Lock()
	s.running[j.ID] = r
	s.mu.Unlock()
	s.metrics.queued(j.Class, 1)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel(nil)
		s.work(ctx, r, res)
	}()
	return r
}

// progress counts a job's files done (a file to be tried again is not)
// and records each file's state.
func (s *Server) progress(j *jobs.Job, f convert.FileResult) {
	state, reason := jobs.FileDone, ""
	switch f.State {
	case convert.StateConverted, convert.StateSkipped:
	case convert.StateRetry:
		state, reason = jobs.FileConverting, "retrying: "+s.clientText(j, f.Reason)
	case convert.StateCancelled:
		state = jobs.FileCancelled
	default:
		state, reason = jobs.FileFailed, s.clientText(j, f.Reason)
		if reason == "" {
			reason = f.State
		}
		// The page says it in words; the log keeps what lay behind.
		s.opts.Log.Info("file failed", "job", j.ID, "file", clientName(j, f.Input), "reason", reason,
			"detail", s.clientText(j, f.Detail))
	}
	s.setFileState(j.ID, f.Input, state, reason)
	if f.State == convert.StateRetry {
		return
	}
	s.mu.Lock()
	if r := s.running[j.ID]; r != nil {
		r.files++
	}
	s.mu.Unlock()
}

// setFileState records the state of the job's input at path (in the
// job's directory) and wakes the job's page.
func (s *Server) setFileState(id, path, state, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.running[id]
	if r == nil {
		return
	}
	base := filepath.Base(path)
	for i, f := range r.job.Request.Files {
		if f.Stored == base && i < len(r.states) {
			r.states[i].State, r.states[i].Reason = state, reason
		}
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// fileStates are the states a job's files start from: those its record
// holds, else queued.
func fileStates(j *jobs.Job) []jobs.FileState {
	states := make([]jobs.FileState, len(j.Request.Files))
	for i, f := range j.Request.Files {
		states[i] = jobs.FileState{Name: f.Name, State: jobs.FileQueued}
		if i < len(j.Files) && j.Files[i].State != jobs.FileConverting {
			states[i] = j.Files[i]
		}
	}
	return states
}

// class is the priority class of a request: P2 unless asked otherwise.
func class(r *http.Request) (sched.Class, error) {
	v := r.Header.Get("Calq-Priority")
	if v == "" {
		return sched.P2, nil
	}
	c, err := sched.ParseClass(v)
	if err != nil {
		return 0, fmt.Errorf("header Calq-Priority %q: %w", v, err)
	}
	return c, nil
}

// SMSPages is what the browser's pages read and do about SMS: the SMS
// page (send, the user's outbox with each message's parts and reports,
// the inbox) and the monitoring page's modems and SMS queue
// (*smsapi.Service does). Allowed says whether u may send (the SMS page
// and its menu entry are for those users, and for administrators).
type SMSPages interface {
	Allowed(ctx context.Context, u users.User) (bool, error)
	Send(ctx context.Context, u users.User, r smsapi.Request) ([]smsapi.Accepted, error)
	List(ctx context.Context, u users.User, f smsapi.Filter) (smsapi.Page[smsapi.Message], error)
	Inbox(ctx context.Context, u users.User, f smsapi.Filter) (smsapi.Page[smsapi.Inbound], error)
	Modems(ctx context.Context) ([]sms.DaemonModem, error)
	Queue(ctx context.Context) (store.Counts, error)
}
