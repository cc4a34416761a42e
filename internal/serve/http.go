package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"calq/convert/sniff"
	"calq/internal/serve/fair"
	"calq/internal/serve/form"
	"calq/internal/serve/jobs"
	"calq/internal/serve/webhook"
	"calq/sched"
)

// routes lists the server's routes: Gotenberg's, calq's jobs, the
// health, version, metrics, debug and favicon, and the pages, all under
// the root path; a disabled group's routes are not there (404).
func (s *Server) routes() (err error) {
	defer func() {
		// ServeMux panics on a pattern that conflicts with another: a
		// metrics path over one of calq's routes.
		if p := recover(); p != nil {
			err = fmt.Errorf("metrics path %q: %v", s.metricsPath(), p)
		}
	}()
	s.guard = newGuard()
	m := http.NewServeMux()
	for _, route := range formRoutes {
		if !s.routeOff(route) {
			m.Handle("POST /forms/"+route, s.auth(s.sync(route)))
		}
	}
	m.Handle("POST /jobs", s.auth(http.HandlerFunc(s.submit)))
	m.Handle("GET /jobs", s.auth(http.HandlerFunc(s.list)))
	m.Handle("GET /jobs/{id}", s.auth(http.HandlerFunc(s.status)))
	m.Handle("GET /jobs/{id}/result", s.auth(http.HandlerFunc(s.result)))
	m.Handle("DELETE /jobs/{id}", s.auth(http.HandlerFunc(s.cancelJob)))
	m.HandleFunc("GET /health", s.health)
	m.HandleFunc("HEAD /health", s.health)
	m.Handle("GET /version", s.auth(http.HandlerFunc(s.version)))
	m.Handle("GET /favicon.ico", s.auth(http.HandlerFunc(favicon)))
	if s.opts.Routes.Debug {
		m.Handle("GET /debug", s.auth(http.HandlerFunc(s.debug)))
	}
	if !s.opts.Routes.NoMetrics {
		m.Handle("GET "+s.metricsPath(), s.auth(s.metrics.handler()))
	}
	s.pageRoutes(m)
	for _, sf := range s.opts.Surfaces {
		sf.Register(m, s.auth)
	}
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/forms/") {
			if _, pattern := m.Handler(&http.Request{Method: http.MethodPost, URL: r.URL, Host: r.Host}); pattern != "/" {
				w.Header().Set("Allow", http.MethodPost)
				fail(w, http.StatusMethodNotAllowed, fmt.Sprintf("Method Not Allowed: %s takes POST", r.URL.Path))
				return
			}
		}
		fail(w, http.StatusNotFound, fmt.Sprintf("no route %s %s", r.Method, r.URL.Path))
	})
	s.mux = rooted(s.opts.Routes.RootPath, m)
	return nil
}

// fail answers an error as Gotenberg does: one plain-text sentence,
// without a line feed, under Gotenberg's very Content-Type (its clients
// and its integration suite compare both byte for byte).
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", contentTypeText)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, msg)
}

// contentTypeText is the Content-Type of Gotenberg's error replies.
const contentTypeText = "text/plain; charset=UTF-8"

// sync is a Gotenberg route: the reply is the result, unless a webhook
// takes it (204 at once).
func (s *Server) sync(route string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
		defer cancel()
		j, rn, err := s.accept(ctx, w, r, route, true)
		if err != nil {
			s.refuse(w, err)
			return
		}
		if len(j.Request.Webhook) > 0 {
			if s.opts.WebhookSync {
				// Within the request's time; past it, the job and its
				// delivery go on, as without the setting.
				select {
				case <-rn.done:
					s.delivered(ctx, j.ID)
				case <-ctx.Done():
				}
			}
			w.Header().Set("Gotenberg-Trace", j.Request.Trace)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		select {
		case <-rn.done:
		case <-ctx.Done():
			if r.Context().Err() == nil {
				// The request's time ran out: Gotenberg's 503.
				rn.cancel(errCancelled)
				<-rn.done
				w.Header().Set("Retry-After", retryAfter(s.files.PredictWait(j.Owner, j.Class, len(j.Request.Files))))
				fail(w, http.StatusServiceUnavailable, fmt.Sprintf("Service Unavailable: the conversion did not finish within %v", s.opts.RequestTimeout))
				return
			}
			rn.cancel(errCancelled) // the client went away
			<-rn.done
			return
		}
		if s.base.Err() != nil && !j.State.Final() {
			// The server stopped before the job's end: it stays queued
			// for the next start, as POST /jobs would show.
			w.Header().Set("Retry-After", "10")
			fail(w, http.StatusServiceUnavailable, "Service Unavailable: calq serve is stopping; the request is kept as job "+j.ID+" for its next start")
			return
		}
		s.reply(w, j, rn.err)
		if j.State == jobs.Done && len(j.Pending) == 0 {
			os.RemoveAll(s.jobDir(j.ID)) // delivered: nothing to keep but the record
		}
	})
}

// refuse answers an error of accept.
func (s *Server) refuse(w http.ResponseWriter, err error) {
	status, msg, retry := s.refusal(err)
	if retry > 0 {
		w.Header().Set("Retry-After", retryAfter(retry))
	}
	fail(w, status, msg)
}

// refusal is the status and sentence an error of accept answers, and
// when to try again (0: no Retry-After). An error of the server's own
// says nothing of its paths or internals (internalError).
func (s *Server) refusal(err error) (status int, msg string, retry time.Duration) {
	var fe *form.Error
	var je *jobError
	var full *queueFull
	var pe *pageError
	switch {
	case errors.As(err, &fe):
		return fe.Status, fe.Msg, 0
	case errors.As(err, &pe):
		return http.StatusBadRequest, pe.msg, 0
	case errors.As(err, &full):
		return http.StatusTooManyRequests, full.msg, max(full.retry, time.Second)
	case errors.As(err, &je):
		return je.status, je.msg, 0
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "Service Unavailable: the request's time ran out while it was read", 0
	default:
		return s.internalError("accept the request", err)
	}
}

// queueFull is a request refused for back-pressure: 429.
type queueFull struct {
	msg   string
	retry time.Duration
}

func (e *queueFull) Error() string { return e.msg }

// retryAfter is a Retry-After value: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// reply writes a finished job's result, or its error.
func (s *Server) reply(w http.ResponseWriter, j *jobs.Job, err error) {
	w.Header().Set("Gotenberg-Trace", j.Request.Trace)
	if err != nil {
		var je *jobError
		if errors.As(err, &je) {
			fail(w, je.status, je.msg)
			return
		}
		s.failInternal(w, "finish the job", err)
		return
	}
	if j.State != jobs.Done || j.Result == nil {
		status := j.Status
		if status < 400 || status > 599 {
			status = http.StatusInternalServerError
		}
		fail(w, status, j.Error)
		return
	}
	f, err := os.Open(filepath.Join(s.jobDir(j.ID), j.Result.Path))
	if err != nil {
		fail(w, http.StatusGone, "the job's result is gone (calq serve keeps results for --keep)")
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", j.Result.ContentType)
	if j.Result.ContentType != contentTypeJSON { // metadata/read's JSON is a reply, not a file, as Gotenberg's
		w.Header().Set("Content-Disposition", disposition(j.Result.Name))
	}
	http.ServeContent(w, &http.Request{Method: http.MethodGet, Header: http.Header{}}, "", j.Finished, f)
}

// disposition is an attachment header for name, with the name in ASCII
// and, when it is not, also in RFC 5987's form.
func disposition(name string) string {
	ascii := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	v := fmt.Sprintf(`attachment; filename="%s"`, ascii)
	if ascii != name {
		v += "; filename*=UTF-8''" + urlEscape(name)
	}
	return v
}

func urlEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// submit is POST /jobs: the same form as a Gotenberg route, named by the
// Calq-Route header or the route field (libreoffice/convert by default);
// 202 with the job's id.
func (s *Server) submit(w http.ResponseWriter, r *http.Request) {
	route := r.Header.Get("Calq-Route")
	if route == "" {
		route = r.URL.Query().Get("route")
	}
	if route == "" {
		route = routeConvert
	}
	route = strings.TrimPrefix(strings.TrimPrefix(route, "/"), "forms/")
	if !knownRoute(route) {
		fail(w, http.StatusBadRequest, fmt.Sprintf("unknown route %q for a job: give one of calq serve's /forms/ routes", route))
		return
	}

	ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
	defer cancel()
	j, _, err := s.accept(ctx, w, r, route, false)
	if err != nil {
		s.refuse(w, err)
		return
	}
	w.Header().Set("Location", "/jobs/"+j.ID)
	w.Header().Set("Gotenberg-Trace", j.Request.Trace)
	writeJSON(w, http.StatusAccepted, s.view(j))
}

// formRoutes are Gotenberg's routes calq serves, below /forms/.
var formRoutes = []string{routeConvert, routeMerge, routeSplit, routePDFA, routeMetaRead, routeMetaWrite,
	routeEncrypt, routeWatermark, routeStamp, routeRotate, routeFlatten, routeOptimize,
	routeBookmarksRead, routeBookmarksWrite, routeEmbed, routeFacturX,
	routeChromiumHTML, routeChromiumURL, routeChromiumMarkdown, routeScreenshotHTML, routeScreenshotURL, routeScreenshotMarkdown}

func knownRoute(route string) bool { return slices.Contains(formRoutes, route) }

// jobView is a job as GET /jobs/{id} shows it.
type jobView struct {
	ID        string     `json:"id"`
	Route     string     `json:"route"`
	State     jobs.State `json:"state"`
	Owner     string     `json:"owner,omitempty"`
	Priority  string     `json:"priority"`
	Created   time.Time  `json:"created"`
	Started   *time.Time `json:"started,omitempty"`
	Finished  *time.Time `json:"finished,omitempty"`
	Files     []fileView `json:"files"`
	FilesDone int        `json:"files_done"`
	Result    string     `json:"result,omitempty"` // the URL of the result
	Error     string     `json:"error,omitempty"`
	Status    int        `json:"status,omitempty"`
	Trace     string     `json:"trace,omitempty"`
	// Deliveries the job still owes (webhook, mail), tried again until
	// they succeed or --keep ends, and why the last attempt failed.
	Pending       []string `json:"deliveries_pending,omitempty"`
	DeliveryError string   `json:"delivery_error,omitempty"`
	// Expired: the job's files are deleted (--keep); the record stays
	// for the history (--keep-records).
	Expired bool `json:"expired,omitempty"`
}

type fileView struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

func (s *Server) view(j *jobs.Job) jobView {
	v := jobView{ID: j.ID, Route: j.Route, State: j.State, Owner: j.Owner, Priority: j.Class.String(),
		Created: j.Created.UTC(), Error: j.Error, Status: j.Status, Trace: j.Request.Trace,
		Pending: j.Pending, DeliveryError: j.DeliveryError}
	if !j.Started.IsZero() {
		t := j.Started.UTC()
		v.Started = &t
	}
	if !j.Finished.IsZero() {
		t := j.Finished.UTC()
		v.Finished = &t
	}
	for _, f := range j.Request.Files {
		v.Files = append(v.Files, fileView{Name: f.Name, Size: f.Size})
	}
	s.mu.Lock()
	if r := s.running[j.ID]; r != nil {
		v.FilesDone = r.files
		if r.started && v.State == jobs.Queued {
			v.State = jobs.Running
		}
	}
	s.mu.Unlock()
	if j.State == jobs.Done {
		v.FilesDone = len(j.Request.Files)
		if !j.Expired {
			v.Result = s.root() + "/jobs/" + j.ID + "/result"
		}
	}
	v.Expired = j.Expired
	return v
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// lookup finds the job of the request's path for its user: another
// user's job is 404, as a job that does not exist.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (jobs.Job, bool) {
	id := r.PathValue("id")
	j, err := s.opts.Jobs.Get(r.Context(), owner(user(r)), id)
	if errors.Is(err, jobs.ErrNotFound) {
		fail(w, http.StatusNotFound, fmt.Sprintf("no job %q", id))
		return j, false
	}
	if err != nil {
		s.failInternal(w, "read the job", err)
		return j, false
	}
	return j, true
}

// status is GET /jobs/{id}; with ?wait=DURATION (at most a minute) the
// reply waits until the job is final or that time passed.
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	j, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if v := r.URL.Query().Get("wait"); v != "" && !j.State.Final() {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			fail(w, http.StatusBadRequest, fmt.Sprintf("wait=%q: want a duration such as 20s", v))
			return
		}
		s.mu.Lock()
		rn := s.running[j.ID]
		s.mu.Unlock()
		if rn != nil {
			t := time.NewTimer(min(d, time.Minute))
			select {
			case <-rn.done:
			case <-t.C:
			case <-r.Context().Done():
			}
			t.Stop()
			if j, ok = s.lookup(w, r); !ok {
				return
			}
		}
	}
	writeJSON(w, http.StatusOK, s.view(&j))
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	js, err := s.opts.Jobs.List(r.Context(), owner(user(r)), 100)
	if err != nil {
		s.failInternal(w, "list the jobs", err)
		return
	}
	views := make([]jobView, len(js))
	for i := range js {
		views[i] = s.view(&js[i])
	}
	writeJSON(w, http.StatusOK, views)
}

func (s *Server) result(w http.ResponseWriter, r *http.Request) {
	j, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if !j.State.Final() {
		w.Header().Set("Retry-After", retryAfter(s.files.PredictWait(j.Owner, j.Class, len(j.Request.Files))))
		fail(w, http.StatusConflict, fmt.Sprintf("job %s is %s; its result is not ready", j.ID, j.State))
		return
	}
	s.reply(w, &j, nil)
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	j, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if j.State.Final() {
		// A final job is deleted with its files: the client has its
		// result, or does not want it.
		if err := os.RemoveAll(s.jobDir(j.ID)); err != nil {
			s.failInternal(w, "delete the job's files", err)
			return
		}
		if err := s.opts.Jobs.Delete(r.Context(), j.ID); err != nil {
			s.failInternal(w, "delete the job", err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.mu.Lock()
	rn := s.running[j.ID]
	s.mu.Unlock()
	if rn != nil {
		rn.cancel(errCancelled)
		<-rn.done
	} else if _, err := s.opts.Jobs.Finish(r.Context(), j.ID, jobs.Cancelled, nil, errCancelled.Error(), 499); err != nil {
		s.failInternal(w, "cancel the job", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// accept reads a request into a job of the journal and launches it. The
// uploads go to the job's directory under calq's names; a request
// refused on the way leaves nothing behind.
func (s *Server) accept(ctx context.Context, w http.ResponseWriter, r *http.Request, route string, sync bool) (*jobs.Job, *run, error) {
	if s.routeOff(route) {
		// POST /jobs and the convert page reach a route this way too.
		return nil, nil, &jobError{status: http.StatusNotFound, msg: fmt.Sprintf("Not Found: the route /forms/%s is disabled on this server", route)}
	}
	if isChromium(route) {
		if err := s.chromiumReady(); err != nil {
			return nil, nil, err
		}
	}
	u := user(r)
	cl, err := class(r)
	if err != nil {
		return nil, nil, badRequest("%v", err)
	}
	meta, err := form.Headers(r.Header)
	if err != nil {
		return nil, nil, err
	}
	hook, err := webhook.ParseHeaders(r.Header)
	if err != nil {
		return nil, nil, badRequest("%v", err)
	}
	if hook != nil {
		if s.opts.Webhooks == nil || s.opts.WebhookPolicy == nil {
			return nil, nil, badRequest("calq serve was started without webhooks")
		}
		if err := s.opts.WebhookPolicy.CheckRequest(hook); errors.Is(err, webhook.ErrRefused) {
			// A target the policy keeps out: Gotenberg's 403 for a
			// filtered URL.
			return nil, nil, &jobError{status: http.StatusForbidden, msg: "Forbidden: " + err.Error(), err: err}
		} else if err != nil {
			return nil, nil, badRequest("%v", err)
		}
	}
	id := newID()
	dir := s.jobDir(id)
	if err := os.MkdirAll(filepath.Join(dir, inputDirName), 0o700); err != nil {
		return nil, nil, err
	}
	keep := false
	defer func() {
		if !keep {
			os.RemoveAll(dir)
		}
	}()
	// A body sent slowly is cut when the request's time runs out: a
	// blocked read would hold the connection for ever.
	if deadline, ok := ctx.Deadline(); ok {
		http.NewResponseController(w).SetReadDeadline(deadline)
	}
	f, err := form.Read(r.WithContext(ctx), filepath.Join(dir, inputDirName), s.opts.Limits)
	if st := pageOf(ctx); st != nil {
		st.form = f // shown again if refused
	}
	if err != nil {
		return nil, nil, err
	}
	if err := s.download(ctx, route, f, filepath.Join(dir, inputDirName)); err != nil {
		return nil, nil, err
	}
	if !isChromium(route) { // form.Chromium says which file its route requires
		f.RequireInputs(routeExtensions(route))
	}
	t, err := s.task(ctx, route, f, u)
	if err != nil {
		return nil, nil, err
	}
	inputs := f.Inputs()
	units := len(inputs)
	switch {
	case isChromium(route):
		if err := checkSite(route, inputs, t); err != nil {
			return nil, nil, err
		}
		units = 1 // one page, whatever its assets
	case len(inputs) == 0:
		return nil, nil, badRequest("Invalid form data: no form file found")
	}
	if err := checkFiles(route, inputs, t); err != nil {
		return nil, nil, err
	}
	res, err := s.admit(u.Name, cl, units, sync && hook == nil)
	if err != nil {
		return nil, nil, err
	}
	if err := writeSecrets(dir, t.takeSecrets()); err != nil {
		res.Done()
		return nil, nil, err
	}
	opts, err := json.Marshal(t)
	if err != nil {
		res.Done()
		return nil, nil, err
	}
	j := &jobs.Job{ID: id, Owner: u.Name, Route: route, Class: cl, Sync: sync && hook == nil,
		Request: jobs.Request{Options: opts, Trace: meta.Trace, Filename: meta.OutputFilename}}
	for _, file := range inputs {
		j.Request.Files = append(j.Request.Files, jobs.File{Name: file.Name, Stored: filepath.Base(file.Path), Size: file.Size})
	}
	if hook != nil {
		if j.Request.Webhook, err = json.Marshal(hook); err != nil {
			res.Done()
			return nil, nil, err
		}
	}
	if err := s.opts.Jobs.Add(context.WithoutCancel(ctx), j); err != nil {
		res.Done()
		return nil, nil, err
	}
	keep = true
	return j, s.launch(j, res), nil
}

// routeExtensions are the extensions of the files route takes, as its
// refusal of a form without files lists them.
func routeExtensions(route string) []string {
	switch {
	case route == routeConvert:
		return sniff.Supported()
	case isMarkdown(route):
		return []string{".html", ".md"}
	case isChromium(route):
		return []string{".html"}
	}
	return []string{".pdf"}
}

// admit holds room for n files of user in the queue, or refuses them:
// 413 only when they could never be queued under the bounds; 429 with
// Retry-After when the queue is full or, for a synchronous request, when
// the predicted time is over the request's limit (Gotenberg would answer
// 503 once it ran out). A prediction only delays: a request predicted
// over its limit even on an idle gate is admitted once nothing is ahead
// of it (fair.Gate.RetryAfter).
func (s *Server) admit(user string, cl sched.Class, n int, sync bool) (*fair.Reservation, error) {
	if sync {
		if wait := s.files.RetryAfter(user, cl, n, s.opts.RequestTimeout); wait > 0 {
			return nil, &queueFull{retry: wait, msg: fmt.Sprintf(
				"Too Many Requests: the predicted time of this request, %v, is over its limit of %v; retry later or use POST /jobs",
				s.files.PredictWait(user, cl, n).Round(100*time.Millisecond), s.opts.RequestTimeout)}
		}
	}
	res, err := s.files.Reserve(user, n)
	switch {
	case errors.Is(err, fair.ErrTooLarge):
		return nil, &jobError{status: http.StatusRequestEntityTooLarge, msg: "Request Entity Too Large: " + err.Error(), err: err}
	case err != nil:
		return nil, &queueFull{msg: "Too Many Requests: " + err.Error(), retry: s.files.Drain(n)}
	}
	return res, nil
}
