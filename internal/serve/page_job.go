package serve

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"calq/internal/serve/jobs"
	"calq/internal/zipfile"
)

// progressView is a job's progress as its page and its events show it.
// State is the job's outcome (jobs.Partial for a done job with failed
// files), Label that state in words.
type progressView struct {
	State jobs.State       `json:"state"`
	Label string           `json:"label"`
	Final bool             `json:"final"`
	Files []jobs.FileState `json:"files"`
	Done  int              `json:"done"` // files no longer waiting or converting
	Total int              `json:"total"`
	// Failed is how many files failed: it is not in the events, whose
	// files say it.
	Failed int    `json:"-"`
	Error  string `json:"error,omitempty"`
}

// progress is job j's progress: live while this process runs it, else
// as its record says.
func (s *Server) jobProgress(j *jobs.Job) progressView {
	v := progressView{State: j.State, Final: j.State.Final(), Error: j.Error, Total: len(j.Request.Files)}
	s.mu.Lock()
	if r := s.running[j.ID]; r != nil {
		v.Files = slices.Clone(r.states)
		if r.started && v.State == jobs.Queued {
			v.State = jobs.Running
		}
	}
	s.mu.Unlock()
	if v.Files == nil {
		v.Files = fileStates(j)
	}
	for _, f := range v.Files {
		if f.State != jobs.FileQueued && f.State != jobs.FileConverting {
			v.Done++
		}
		if f.State == jobs.FileFailed {
			v.Failed++
		}
	}
	if v.State == jobs.Done && v.Failed > 0 {
		v.State = jobs.Partial
	}
	v.Label = stateLabel(v.State)
	return v
}

// stateLabel is a job's state (or outcome) in words.
func stateLabel(st jobs.State) string {
	switch st {
	case jobs.Running:
		return "converting"
	case jobs.Partial:
		return "done, some files failed"
	}
	return string(st)
}

// jobErrorShown says whether a page shows a job's error beside its
// files: only when no file says why it failed, since the error of a job
// whose files failed is their reasons again.
func jobErrorShown(j *jobs.Job, p progressView) bool {
	if j.Error == "" || p.State == jobs.Done || p.State == jobs.Partial {
		return false
	}
	for _, f := range p.Files {
		if f.Reason != "" {
			return false
		}
	}
	return true
}

// output is one PDF of a job's result, as its page links it.
type output struct {
	N    int
	Name string
}

// outputs are the PDFs of a done job's result.
func outputs(j *jobs.Job) []output {
	if j.State != jobs.Done || j.Result == nil {
		return nil
	}
	if j.Result.ContentType == contentTypePDF {
		return []output{{0, j.Result.Name}}
	}
	var out []output
	for i, name := range j.Result.Files {
		out = append(out, output{i, name})
	}
	return out
}

type jobPageView struct {
	Job       jobs.Job
	Progress  progressView
	Outputs   []output
	Contacts  []Contact
	Mail      bool
	Kept      time.Time // when retention deletes the files
	ShowError bool      // the job's error says what its files do not
}

// newJobPageView is job j as its page shows it.
func (s *Server) newJobPageView(r *http.Request, j *jobs.Job) jobPageView {
	v := jobPageView{Job: *j, Progress: s.jobProgress(j), Outputs: outputs(j), Mail: s.opts.Mail != nil,
		Kept: j.Created.Add(s.opts.Keep)}
	if s.opts.Contacts != nil {
		v.Contacts, _ = s.opts.Contacts.List(r.Context(), user(r).Name)
	}
	v.ShowError = jobErrorShown(j, v.Progress)
	return v
}

// pageJob finds the job of the request's path for its user, answering
// 404 for another user's job as for one that does not exist.
func (s *Server) pageJob(w http.ResponseWriter, r *http.Request) (jobs.Job, bool) {
	id := r.PathValue("id")
	j, err := s.opts.Jobs.Get(r.Context(), owner(user(r)), id)
	if errors.Is(err, jobs.ErrNotFound) {
		s.problem(w, r, http.StatusNotFound, "Not found: there is no such job among yours.")
		return j, false
	}
	if err != nil {
		s.internalProblem(w, r, "read the job", err)
		return j, false
	}
	return j, true
}

func (s *Server) jobPage(w http.ResponseWriter, r *http.Request) {
	j, ok := s.pageJob(w, r)
	if !ok {
		return
	}
	v := s.newJobPageView(r, &j)
	p := page{Title: jobTitle(&j), Nav: "history", Data: v, Refresh: !v.Progress.Final}
	if r.URL.Query().Get("mailed") != "" {
		p.Notice = "The result was mailed."
	}
	s.render(w, r, http.StatusOK, "job", p)
}

// startEvents begins a response of server-sent events: no buffering on
// the way, no write deadline. It answers a page saying why, and false,
// when the connection cannot stream.
func (s *Server) startEvents(w http.ResponseWriter, r *http.Request) (http.Flusher, bool) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		s.problem(w, r, http.StatusInternalServerError, "This connection cannot stream events.")
		return nil, false
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	http.NewResponseController(w).SetWriteDeadline(time.Time{})
	return flusher, true
}

// jobEvents streams a job's progress as server-sent events ("progress",
// a JSON progressView) until it is final.
func (s *Server) jobEvents(w http.ResponseWriter, r *http.Request) {
	j, ok := s.pageJob(w, r)
	if !ok {
		return
	}
	flusher, ok := s.startEvents(w, r)
	if !ok {
		return
	}
	var last []byte
	for {
		s.mu.Lock()
		rn := s.running[j.ID]
		var changed, done <-chan struct{}
		if rn != nil {
			changed, done = rn.changed, rn.done
		}
		s.mu.Unlock()
		if rn == nil {
			var err error
			if j, err = s.opts.Jobs.Get(r.Context(), owner(user(r)), j.ID); err != nil {
				return
			}
		}
		v := s.jobProgress(&j)
		b, _ := json.Marshal(v)
		if string(b) != string(last) {
			fmt.Fprintf(w, "event: progress\ndata: %s\n\n", b)
			flusher.Flush()
			last = b
		}
		if v.Final {
			return
		}
		t := time.NewTimer(15 * time.Second)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-changed:
		case <-done:
		case <-t.C:
			fmt.Fprint(w, ": still running\n\n")
			flusher.Flush()
		}
		t.Stop()
		if rn == nil {
			// Another process runs it (a restart): read its record again soon.
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
		}
	}
}

// viewPage shows PDF n of a job in the page, every page of it drawn by
// PDF.js with a text layer the browser's find searches.
func (s *Server) viewPage(w http.ResponseWriter, r *http.Request) {
	j, ok := s.pageJob(w, r)
	if !ok {
		return
	}
	out, ok := s.pageOutput(w, r, &j)
	if !ok {
		return
	}
	s.render(w, r, http.StatusOK, "view", page{Title: out.Name, Nav: "history",
		Data: struct {
			Job    jobs.Job
			Output output
		}{j, out}})
}

// pageOutput is PDF n of the request's path, or a page saying why there
// is none.
func (s *Server) pageOutput(w http.ResponseWriter, r *http.Request, j *jobs.Job) (output, bool) {
	if j.Expired {
		s.gone(w, r, true)
		return output{}, false
	}
	outs := outputs(j)
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 0 || n >= len(outs) {
		s.problem(w, r, http.StatusNotFound, "Not found: this job has no such PDF.")
		return output{}, false
	}
	return outs[n], true
}

// gone answers 410 for a job's files: deleted by --keep (expired), or
// missing from the data directory.
func (s *Server) gone(w http.ResponseWriter, r *http.Request, expired bool) {
	msg := "Gone: the job's result is no longer on the server."
	if expired {
		msg = "Gone: this job's files were deleted after " + humanDuration(s.opts.Keep) + " (calq serve --keep)."
	}
	s.problem(w, r, http.StatusGone, msg)
}

// jobFile sends PDF n of a job: inline, so that the viewer and the
// browser show it; ?download=1 as an attachment.
func (s *Server) jobFile(w http.ResponseWriter, r *http.Request) {
	j, ok := s.pageJob(w, r)
	if !ok {
		return
	}
	out, ok := s.pageOutput(w, r, &j)
	if !ok {
		return
	}
	disp := strings.Replace(disposition(out.Name), "attachment", "inline", 1)
	if r.URL.Query().Get("download") != "" {
		disp = disposition(out.Name)
	}
	path := filepath.Join(s.jobDir(j.ID), j.Result.Path)
	// No page CSP here: a PDF opened in the browser's own viewer (the
	// viewer page's fallback without JavaScript) is a plugin it would block.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Disposition", disp)
	w.Header().Set("Content-Type", contentTypePDF)
	w.Header().Set("Cache-Control", "private, no-store")
	if j.Result.ContentType == contentTypePDF {
		f, err := os.Open(path)
		if err != nil {
			s.gone(w, r, false)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, "", j.Finished, f)
		return
	}
	zr, err := zip.OpenReader(path)
	if err != nil || out.N >= len(zr.File) {
		s.gone(w, r, false)
		return
	}
	defer zr.Close()
	e := zr.File[out.N]
	rc, err := e.Open()
	if err != nil {
		s.internalProblem(w, r, "read the PDF from the job's zip", err)
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Length", strconv.FormatUint(e.UncompressedSize64, 10))
	io.Copy(w, rc)
}

// jobZip sends all of a job's PDFs as one zip, named for people
// (peopleName).
func (s *Server) jobZip(w http.ResponseWriter, r *http.Request) {
	j, ok := s.pageJob(w, r)
	if !ok {
		return
	}
	if j.Expired {
		s.gone(w, r, true)
		return
	}
	if j.State != jobs.Done || j.Result == nil {
		s.problem(w, r, http.StatusConflict, "This job has no result: it is "+string(j.State)+".")
		return
	}
	path := filepath.Join(s.jobDir(j.ID), j.Result.Path)
	if j.Result.ContentType == contentTypeZip {
		f, err := os.Open(path)
		if err != nil {
			s.gone(w, r, false)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", contentTypeZip)
		w.Header().Set("Content-Disposition", disposition(peopleName(&j)))
		http.ServeContent(w, r, "", j.Finished, f)
		return
	}
	if _, err := os.Stat(path); err != nil {
		s.gone(w, r, false)
		return
	}
	w.Header().Set("Content-Type", contentTypeZip)
	w.Header().Set("Content-Disposition", disposition(strings.TrimSuffix(j.Result.Name, ".pdf")+".zip"))
	zw := zipfile.NewWriter(w)
	err := zw.AddFile(j.Result.Name, path)
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		s.opts.Log.Error("send a job's zip", "job", j.ID, "err", err)
	}
}

// jobMail mails a done job's result to the contacts or addresses of the
// form's field "to" (comma-separated), at once; the page says whether it
// went.
func (s *Server) jobMail(w http.ResponseWriter, r *http.Request) {
	j, ok := s.pageJob(w, r)
	if !ok {
		return
	}
	readForm(w, r) // an unreadable form names no one: refused below
	var to []string
	for _, t := range strings.Split(r.PostForm.Get("to"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			to = append(to, t)
		}
	}
	again := func(status int, msg string) {
		v := s.newJobPageView(r, &j)
		s.render(w, r, status, "job", page{Title: jobTitle(&j), Nav: "history", Data: v, Error: msg})
	}
	switch {
	case s.opts.Mail == nil:
		again(http.StatusBadRequest, "Mail is off: calq serve's config file has no [smtp] server.")
		return
	case len(to) == 0:
		again(http.StatusBadRequest, "Name a contact or an address to mail the result to.")
		return
	case j.Expired || j.State != jobs.Done || j.Result == nil:
		again(http.StatusConflict, "This job has no result to mail.")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	defer cancel()
	u := user(r)
	if err := s.opts.Mail.Check(ctx, u.Name, to); err != nil {
		again(http.StatusBadRequest, "Cannot mail to "+strings.Join(to, ", ")+": "+err.Error())
		return
	}
	file := filepath.Join(s.jobDir(j.ID), j.Result.Path)
	if err := s.opts.Mail.Send(ctx, u.Name, to, []string{file}, []string{peopleName(&j)}); err != nil {
		s.opts.Log.Warn("mail from a job's page", "job", j.ID, "user", u.Name, "err", err)
		again(http.StatusBadGateway, "The mail was not sent: "+s.clientText(&j, err.Error())+". Nothing was sent; try again.")
		return
	}
	s.opts.Log.Info("mailed from a job's page", "job", j.ID, "user", u.Name, "to", len(to))
	http.Redirect(w, r, "/job/"+j.ID+"?mailed=1", http.StatusSeeOther)
}
