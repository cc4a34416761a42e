package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"calq/internal/serve/fair"
	"calq/internal/serve/form"
	"calq/internal/serve/profiles"
)

type pageKey struct{}

// pageState is what the convert page's request carries through accept:
// the form as read, so that a refused form is shown again as it was.
type pageState struct {
	form *form.Form
}

// fromPage says whether a request came from the convert page.
func fromPage(ctx context.Context) bool { return pageOf(ctx) != nil }

// pageOf is the convert page's state of a request, nil for the API's.
func pageOf(ctx context.Context) *pageState { v, _ := ctx.Value(pageKey{}).(*pageState); return v }

type convertView struct {
	Profiles []profiles.Named
	Contacts []Contact
	MaxFile  int64
	MaxBody  int64
	MaxFiles int  // the most files the user may send at once
	Waiting  int  // the user's files waiting now
	Room     int  // how many the user may send now: MaxFiles, less when files wait
	Mail     bool // mail can be sent
	Form     pageForm
}

// pageForm is the convert form's choices, as sent: a refused form is
// shown again with them. Files and passwords are never shown again: a
// browser forgets the files, and passwords stay out of pages.
type pageForm struct {
	Refused   bool // shown again after a refusal
	Profile   string
	Watermark string
	PDFA      string
	Merge     bool
	MailTo    string
	Passwords bool // passwords were typed: they must be typed again
}

func (s *Server) convertView(r *http.Request) convertView {
	u := user(r)
	lim := s.opts.Limits.WithDefaults()
	v := convertView{MaxFile: min(lim.MaxFile, lim.MaxBody), MaxBody: lim.MaxBody,
		MaxFiles: min(lim.MaxFiles, s.opts.MaxQueued, s.opts.MaxQueuedUser), Mail: s.opts.Mail != nil,
		Waiting: s.files.Stats().WaitingByUser[u.Name]}
	v.Room = max(0, min(v.MaxFiles, s.opts.MaxQueuedUser-v.Waiting))
	if s.opts.Profiles != nil {
		v.Profiles, _ = s.opts.Profiles.List(u.Name)
	}
	if s.opts.Contacts != nil {
		v.Contacts, _ = s.opts.Contacts.List(r.Context(), u.Name)
	}
	return v
}

func (s *Server) convertPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "convert", page{Title: "Convert", Nav: "convert", Data: s.convertView(r)})
}

// convertSubmit takes the convert page's form: Gotenberg's fields of
// /forms/libreoffice/convert (files, pdfa, merge, watermarkExpression,
// userPassword, ownerPassword, mailTo) and profile, one of the user's
// own. The job runs in the background; the browser goes to its page.
// Passwords typed in the form go where the API's do (a 0600 file of the
// job, never the journal) and are never shown again. A refused form
// comes back with its choices and a message in the pages' words.
func (s *Server) convertSubmit(w http.ResponseWriter, r *http.Request) {
	// As POST /jobs: the upload must arrive within --request-timeout.
	st := &pageState{}
	ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), pageKey{}, st), s.opts.RequestTimeout)
	defer cancel()
	j, _, err := s.accept(ctx, w, r.WithContext(ctx), routeConvert, false)
	if err != nil {
		status, _, retry := s.refusal(err)
		if retry > 0 {
			w.Header().Set("Retry-After", retryAfter(retry))
		}
		v := s.convertView(r)
		v.Form = keptForm(st.form)
		msg := s.pageRefusal(err, st.form, v)
		s.render(w, r, status, "convert", page{Title: "Convert", Nav: "convert", Error: msg, Data: v})
		return
	}
	http.Redirect(w, r, "/job/"+j.ID, http.StatusSeeOther)
}

// keptForm is the choices of f, the refused form (nil when none could be
// read).
func keptForm(f *form.Form) pageForm {
	k := pageForm{Refused: true}
	if f == nil {
		return k
	}
	k.Profile, k.Watermark, k.PDFA, k.MailTo = f.Value("profile"), f.Value("watermarkExpression"), f.Value("pdfa"), f.Value("mailTo")
	k.Merge = f.Bool("merge")
	k.Passwords = f.Has("userPassword") || f.Has("ownerPassword")
	return k
}

// pageError is a refusal of the convert page's form in the pages' words
// (400); the API's request gets the form field's error instead.
type pageError struct{ msg string }

func (e *pageError) Error() string { return e.msg }

// refuse is the refusal of field: in the pages' words (msg) for a page's
// request, else in the API's (why, as Gotenberg words a field's error).
func refuse(ctx context.Context, field, why, msg string) error {
	if fromPage(ctx) {
		return &pageError{msg: msg}
	}
	return fieldError(field, why)
}

// pageRefusal is err, a refusal of the convert page's form f, in the
// pages' words; "Nothing was sent" ends it, with what to do again.
func (s *Server) pageRefusal(err error, f *form.Form, v convertView) string {
	var pe *pageError
	var fe *form.Error
	var full *queueFull
	msg := ""
	switch {
	case errors.As(err, &pe):
		msg = pe.msg
	case errors.As(err, &fe) && fe.Limit != "":
		msg = limitSentence(fe, v)
	case errors.Is(err, fair.ErrTooLarge):
		n := 0
		if f != nil {
			n = len(f.Inputs())
		}
		msg = fmt.Sprintf("You chose %d files: at most %d can be sent at once.", n, v.MaxFiles)
	case errors.As(err, &full):
		msg = "calq is busy: too many files are waiting to be converted. Try again in " + humanDuration(full.retry.Round(1e9)) + "."
	case errors.Is(err, context.DeadlineExceeded):
		msg = "The upload took longer than " + humanDuration(s.opts.RequestTimeout) + " and was stopped: send fewer or smaller files at once."
	default:
		_, apiMsg, _ := s.refusal(err)
		msg = "The form was refused: " + apiMsg
	}
	return msg + " Nothing was sent. Choose the files again: a browser forgets them when a form comes back."
}

// limitSentence is a form over one of the page's limits, in its words.
func limitSentence(fe *form.Error, v convertView) string {
	switch fe.Limit {
	case form.LimitFile:
		return fmt.Sprintf("“%s” is larger than %s, the most one file may be.", fe.Name, humanBytes(v.MaxFile))
	case form.LimitFiles:
		return fmt.Sprintf("You chose more than %d files: at most %d can be sent at once.", v.MaxFiles, v.MaxFiles)
	case form.LimitPDF:
		return fmt.Sprintf("“%s” is refused: %v.", fe.Name, fe.Err)
	case form.LimitBody:
		return fmt.Sprintf("The files add up to more than %s, the most one conversion may send.", humanBytes(v.MaxBody))
	}
	return "The form is too large to read: its fields hold more than calq takes."
}
