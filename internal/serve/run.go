package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"calq/convert/lo"
	"calq/convert/pdfpool"
	"calq/internal/serve/fair"
	"calq/internal/serve/jobs"
	"calq/internal/serve/webhook"
	"calq/sched"
)

// errCancelled is the cause of a job cancelled by DELETE /jobs/{id} or
// by its synchronous client going away.
var errCancelled = errors.New("the job was cancelled")

// work runs job r once it is its turn among the jobs (fairly between
// users), records its end and delivers it. When the server stops first,
// the job stays pending in the journal.
func (s *Server) work(ctx context.Context, r *run, res *fair.Reservation) {
	j := r.job
	defer close(r.done)
	if res != nil {
		defer res.Done()
	}
	slot, err := s.active.Acquire(ctx, j.Owner, j.Class)
	s.metrics.queued(j.Class, -1)
	if err != nil {
		s.end(r, nil, context.Cause(ctx))
		return
	}
	defer slot.Release()
	s.mu.Lock()
	r.started = true
	s.mu.Unlock()
	if ok, err := s.opts.Jobs.Start(ctx, j.ID); err != nil || !ok {
		s.end(r, nil, errors.Join(err, errCancelled))
		return
	}
	var t Task
	if err := json.Unmarshal(j.Request.Options, &t); err != nil {
		s.end(r, nil, err)
		return
	}
	sec, err := readSecrets(s.jobDir(j.ID))
	if err != nil {
		s.end(r, nil, err)
		return
	}
	t.putSecrets(sec)
	ctx = context.WithValue(ctx, reservationKey{}, res)
	begin := time.Now()
	result, err := s.execute(ctx, j, s.jobDir(j.ID), t)
	s.metrics.job(j.Route, err, time.Since(begin))
	s.end(r, result, err)
}

// end records a job's outcome, unless the server is stopping (the job
// then stays pending for the next start), removes its uploads, and
// delivers it: its webhook, its mail.
func (s *Server) end(r *run, res *jobs.Result, err error) {
	j := r.job
	s.mu.Lock()
	states := slices.Clone(r.states)
	s.mu.Unlock()
	// The job stays among the running until its end is recorded: a
	// reader that finds it in neither (GET /jobs/ID?wait=) would take the
	// journal's "running" for its last word.
	defer func() {
		s.mu.Lock()
		delete(s.running, j.ID)
		s.mu.Unlock()
	}()
	if err != nil && !errors.Is(err, errCancelled) && s.stopping.Load() && !ownFailure(err) {
		// Stopped by the stop: pending in the journal, run again at the
		// next start, and no crash.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.opts.Jobs.Requeue(ctx, j.ID); err != nil {
			s.opts.Log.Error("requeue a job", "job", j.ID, "err", err)
		}
		return
	}
	state, msg, status := jobs.Done, "", 0
	if err != nil {
		state, msg, status = jobs.Failed, err.Error(), http.StatusInternalServerError
		var je *jobError
		var ce *lo.ConvertError
		switch {
		case errors.Is(err, errCancelled):
			state, status = jobs.Cancelled, 499
		case errors.Is(err, sched.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
			status = http.StatusServiceUnavailable
		case diskFull(err), sqliteCode(err) >= 0: // the server's fault: no paths, no internals
			status, msg, _ = s.internalError("run job "+j.ID, err)
		case errors.As(err, &je):
			status = je.status
		case errors.As(err, &ce), errors.Is(err, pdfpool.ErrMemoryLimit):
			status = http.StatusBadRequest
		}
		msg = s.clientText(j, msg)
		r.err = &jobError{status: status, msg: msg}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	states = finalStates(states, state, msg)
	if err := s.opts.Jobs.SetFiles(ctx, j.ID, states); err != nil {
		s.opts.Log.Error("record a job's files", "job", j.ID, "err", err)
	}
	j.Files = states
	if _, ferr := s.opts.Jobs.Finish(ctx, j.ID, state, res, msg, status); ferr != nil {
		s.opts.Log.Error("record a job's end", "job", j.ID, "err", ferr)
	}
	j.State, j.Result, j.Error, j.Status = state, res, msg, status
	if state == jobs.Done {
		os.RemoveAll(filepath.Join(s.jobDir(j.ID), inputDirName))
		os.Remove(filepath.Join(s.jobDir(j.ID), secretsFile))
	} else {
		os.RemoveAll(s.jobDir(j.ID)) // nothing to keep but the record
	}
	level := slog.LevelInfo
	if state == jobs.Failed {
		level = slog.LevelWarn
	}
	s.opts.Log.Log(ctx, level, "job "+string(state), "job", j.ID, "user", j.Owner, "route", j.Route,
		"files", len(j.Request.Files), "seconds", time.Since(j.Created).Round(time.Millisecond).Seconds(), "error", msg)
	if owed := owes(j); len(owed) > 0 {
		if err := s.opts.Jobs.SetPending(ctx, j.ID, owed, ""); err != nil {
			s.opts.Log.Error("record a job's deliveries", "job", j.ID, "err", err)
		}
		j.Pending = owed
		s.deliver(*j)
	}
}

// ownFailure says whether err is the job's own end, which a stop of
// the server does not cause: its file's time or memory ran out, or its
// request was refused.
func ownFailure(err error) bool {
	var je *jobError
	return stopped(err) || errors.As(err, &je) && je.status < 500
}

// finalStates are the states of a job's files once the job is in state
// st: a file not marked failed is done with a done job; a failed job's
// files that did not fail themselves were not converted because of it.
func finalStates(states []jobs.FileState, st jobs.State, msg string) []jobs.FileState {
	out := slices.Clone(states)
	anyFailed := slices.ContainsFunc(out, func(f jobs.FileState) bool { return f.State == jobs.FileFailed })
	for i := range out {
		f := &out[i]
		if f.State == jobs.FileFailed {
			continue
		}
		switch st {
		case jobs.Done:
			f.State, f.Reason = jobs.FileDone, ""
		case jobs.Cancelled:
			f.State, f.Reason = jobs.FileCancelled, ""
		default:
			f.State = jobs.FileFailed
			if anyFailed {
				f.Reason = "not converted: another file of the job failed"
			} else {
				f.Reason = msg
			}
		}
	}
	return out
}

// The deliveries a job can owe after its end.
const (
	deliverWebhook = "webhook"
	deliverMail    = "mail"
	deliverSMS     = "sms"
)

// owes lists what a job that just ended must deliver: its webhook, for
// a result its mail, and unless it was cancelled its SMS.
func owes(j *jobs.Job) []string {
	var owed []string
	if len(j.Request.Webhook) > 0 {
		owed = append(owed, deliverWebhook)
	}
	var t Task
	if json.Unmarshal(j.Request.Options, &t) != nil {
		return owed
	}
	if j.State == jobs.Done && len(t.MailTo) > 0 {
		owed = append(owed, deliverMail)
	}
	if j.State != jobs.Cancelled && len(t.SMSTo) > 0 {
		owed = append(owed, deliverSMS)
	}
	return owed
}

// deliver sends, in the background, what job j still owes, and records
// what is left; what failed is tried again by the sweep (at most a
// minute later) and after a restart. One delivery a job at a time.
func (s *Server) deliver(j jobs.Job) {
	s.mu.Lock()
	if s.delivering[j.ID] != nil {
		s.mu.Unlock()
		return
	}
	s.delivering[j.ID] = make(chan struct{})
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			close(s.delivering[j.ID])
			delete(s.delivering, j.ID)
			s.mu.Unlock()
		}()
		var left []string
		var failures []string
		for _, what := range j.Pending {
			var err error
			switch what {
			case deliverWebhook:
				err = s.notify(&j)
			case deliverMail:
				err = s.mail(s.base, &j)
			case deliverSMS:
				err = s.text(s.base, &j)
			}
			if err == nil {
				continue
			}
			// Recorded either way: a delivery refused for good (by its
			// target, or by the policy when connecting) leaves its trace
			// too, without being tried again.
			failures = append(failures, what+": "+s.clientText(&j, err.Error()))
			if permanent(err) {
				s.opts.Log.Warn(what+" not delivered; it is not tried again", "job", j.ID, "err", err)
				continue
			}
			left = append(left, what)
			s.opts.Log.Warn(what+" not delivered; it is tried again", "job", j.ID, "err", err)
		}
		if s.base.Err() != nil && len(left) > 0 {
			return // stopping: owed still, as recorded
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.base), 30*time.Second)
		defer cancel()
		if err := s.opts.Jobs.SetPending(ctx, j.ID, left, strings.Join(failures, "; ")); err != nil {
			s.opts.Log.Error("record a job's deliveries", "job", j.ID, "err", err)
		}
	}()
}

// delivered waits until the deliveries under way of job id end, or ctx
// does.
func (s *Server) delivered(ctx context.Context, id string) {
	s.mu.Lock()
	done := s.delivering[id]
	s.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// permanent says whether a delivery's failure would recur: the webhook's
// target refused it (a 4xx other than 408 and 429) or is not allowed.
func permanent(err error) bool {
	var se *webhook.StatusError
	if errors.As(err, &se) && se.Status >= 400 && se.Status < 500 && se.Status != 408 && se.Status != 429 {
		return true
	}
	return errors.Is(err, webhook.ErrRefused) || smsRefused(err)
}

// redeliver tries again what finished jobs still owe.
func (s *Server) redeliver(ctx context.Context) {
	owed, err := s.opts.Jobs.Undelivered(ctx)
	if err != nil {
		s.opts.Log.Error("read undelivered jobs", "err", err)
		return
	}
	for _, j := range owed {
		s.deliver(j)
	}
}

// notify sends a job's webhook (with the sender's retries).
func (s *Server) notify(j *jobs.Job) error {
	if s.opts.Webhooks == nil {
		return errors.New("calq serve was started without webhooks")
	}
	var req webhook.Request
	if err := json.Unmarshal(j.Request.Webhook, &req); err != nil {
		return fmt.Errorf("read the job's webhook: %w", err)
	}
	result := webhook.Result{Trace: j.Request.Trace, Extra: map[string]any{"jobId": j.ID}}
	if j.State == jobs.Done {
		result.Path = filepath.Join(s.jobDir(j.ID), j.Result.Path)
		result.ContentType, result.FileName = j.Result.ContentType, j.Result.Name
	} else {
		result.Failure = &webhook.Failure{Status: j.Status, Message: j.Error}
	}
	return s.opts.Webhooks.Deliver(s.base, &req, result)
}

// mail sends a job's result to the recipients of its mailTo (or its
// user's profile).
func (s *Server) mail(ctx context.Context, j *jobs.Job) error {
	var t Task
	if err := json.Unmarshal(j.Request.Options, &t); err != nil {
		return err
	}
	if s.opts.Mail == nil {
		return errors.New("calq serve has no [smtp] server in its config file any more")
	}
	return s.opts.Mail.Send(ctx, j.Owner, t.MailTo, []string{filepath.Join(s.jobDir(j.ID), j.Result.Path)}, []string{peopleName(j)})
}

// sweep deletes, every so often, the jobs older than Keep that are done,
// with their directories. (Directories no job owns, a request that died
// while uploading, are swept by Start: see sweepLeftovers.)
func (s *Server) sweep() {
	defer s.wg.Done()
	every := min(s.opts.Keep/10, time.Minute)
	t := time.NewTicker(max(every, time.Second))
	defer t.Stop()
	for {
		s.sweepOnce(s.base)
		s.redeliver(s.base)
		select {
		case <-s.base.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) sweepOnce(ctx context.Context) {
	now := s.opts.now()
	old, err := s.opts.Jobs.Before(ctx, now.Add(-s.opts.Keep))
	if err != nil {
		s.opts.Log.Error("retention", "err", err)
		return
	}
	for _, j := range old {
		if !j.State.Final() {
			continue
		}
		if len(j.Pending) > 0 {
			s.opts.Log.Warn("giving up deliveries after --keep", "job", j.ID, "pending", strings.Join(j.Pending, ","),
				"err", j.DeliveryError)
			// The record outlives the files: it keeps saying why.
			why := "given up after --keep: " + strings.Join(j.Pending, ", ")
			if j.DeliveryError != "" {
				why += "; the last attempt: " + j.DeliveryError
			}
			if err := s.opts.Jobs.SetPending(ctx, j.ID, nil, why); err != nil {
				s.opts.Log.Error("retention", "job", j.ID, "err", err)
			}
		}
		if err := os.RemoveAll(s.jobDir(j.ID)); err != nil {
			s.opts.Log.Error("retention", "job", j.ID, "err", err)
			continue
		}
		if err := s.opts.Jobs.Expire(ctx, j.ID); err != nil {
			s.opts.Log.Error("retention", "job", j.ID, "err", err)
		}
	}
	if _, err := s.opts.Jobs.Forget(ctx, now.Add(-s.opts.KeepRecords)); err != nil {
		s.opts.Log.Error("retention", "err", err)
	}
}

// officeRetries is how many more times calq serve tries a document whose
// LibreOffice died (killed, crashed) or was stopped while converting it:
// on whichever instance is free next, the dead one restarting for the
// next document. One that kills LibreOffice every time fails after
// 1+officeRetries tries.
const officeRetries = 2

// fairOffice converts a job's office documents on the warm pool, each
// when it is the turn of the job's user (see fair.Gate).
type fairOffice struct {
	s       *Server
	job     string // its id
	user    string
	class   sched.Class
	retries int // tries after a failure that is LibreOffice's (retryable); convert.Run retries by itself
}

// Convert converts in on an instance, and again up to f.retries times
// when the instance, not the document, failed.
func (f *fairOffice) Convert(ctx context.Context, in, out string, o lo.ConvertOptions) error {
	for try := 0; ; try++ {
		err := f.convertOnce(ctx, in, out, o)
		if err == nil || try >= f.retries || ctx.Err() != nil || !retryable(err) {
			return err
		}
		f.s.opts.Log.Warn("LibreOffice failed converting a document; it is tried again", "job", f.job, "try", try+1, "err", err)
	}
}

// retryable says whether a conversion failed because of its instance
// (it died, or was stopped), so that another try may succeed. (One that
// could not start was tried three times already: see lo.Instance.)
func retryable(err error) bool {
	var ce *lo.ConvertError
	if !errors.As(err, &ce) {
		return false
	}
	switch ce.Reason {
	case lo.ReasonInstanceDied, lo.ReasonStopped:
		return true
	}
	return false
}

func (f *fairOffice) convertOnce(ctx context.Context, in, out string, o lo.ConvertOptions) error {
	if f.s.opts.Pool == nil {
		return &lo.ConvertError{Input: in, Reason: lo.ReasonStartFailed, Err: errors.New("calq serve has no LibreOffice")}
	}
	begin := time.Now()
	slot, err := f.acquire(ctx)
	if err != nil {
		return &lo.ConvertError{Input: in, Reason: lo.ReasonCanceled, Err: err}
	}
	defer slot.Release()
	f.s.metrics.wait(time.Since(begin))
	insts := f.s.opts.Pool.Instances()
	i := slot.Server() % len(insts)
	f.s.busy[i].Store(true)
	defer f.s.busy[i].Store(false)
	f.s.setFileState(f.job, in, jobs.FileConverting, "")
	begin = time.Now()
	err = insts[i].Convert(ctx, in, out, o)
	f.s.metrics.conversion(err, time.Since(begin))
	if cut(err) {
		slot.ReleaseCut() // the deferred Release is then a no-op
	}
	return err
}

// cut says whether a conversion was cut before its end (its time ran
// out, it was cancelled, its instance was stopped): its time is no
// service time, only a lower bound of one.
func cut(err error) bool {
	var ce *lo.ConvertError
	if !errors.As(err, &ce) {
		return false
	}
	switch ce.Reason {
	case lo.ReasonTimeout, lo.ReasonCanceled, lo.ReasonStopped, lo.ReasonClosed:
		return true
	}
	return false
}

// reservationKey is the context key of a job's fair.Reservation: the
// room its files hold in the queue, spent as they reach an instance.
type reservationKey struct{}

// acquire takes an instance for one document: through the job's
// reservation while it lasts (a retry, or an image made PDF/A, may need
// one more), else straight from the gate.
func (f *fairOffice) acquire(ctx context.Context) (*fair.Slot, error) {
	if res, _ := ctx.Value(reservationKey{}).(*fair.Reservation); res != nil {
		slot, err := res.Acquire(ctx, f.class)
		if !errors.Is(err, fair.ErrSpent) {
			return slot, err
		}
	}
	return f.s.files.Acquire(ctx, f.user, f.class)
}
