package serve

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/sms/pdu"
)

// smsFormMax bounds the SMS page's form: room for the longest message
// there is, 255 parts of 153 septets, each a character that the form
// sends as six bytes (é is two bytes of UTF-8, each %XX; a line end is
// %0D%0A), and its recipients. readForm's 64 KiB is not: 255 parts of
// UCS-2 CJK take 150 KiB.
const smsFormMax = 256 << 10

// smsPageSize is how many messages, sent and received, the SMS page
// shows at once; older ones are a link away.
const smsPageSize = 20

// smsForm is the SMS page's form as it was typed.
type smsForm struct {
	To, Text, At, Priority string
	Flash, Report          bool
}

type smsView struct {
	Allowed    bool // may send: the form is shown
	Admin      bool // the lists are everyone's
	Form       smsForm
	Contacts   []Contact // those with a phone number
	Alphabet   gsmAlphabet
	Outbox     smsapi.Page[smsapi.Message]
	Inbox      smsapi.Page[smsapi.Inbound]
	OutboxErr  string
	InboxErr   string
	Live       bool  // some message is not settled yet: the page listens for changes
	Before     int64 // the outbox page's ?before
	Priorities []string
}

// smsNav says whether the menu links to the SMS page for u: calq serve
// has one and u may send (or is an administrator, who sees every
// message).
func (s *Server) smsNav(r *http.Request, u users.User) bool {
	if s.opts.SMSPages == nil || u.Name == "" {
		return false
	}
	if u.Admin {
		return true
	}
	ok, err := s.opts.SMSPages.Allowed(r.Context(), u)
	return err == nil && ok
}

// smsPage is the SMS page: the form to send (for users allowed to), the
// user's sent messages with their parts and reports (an administrator's:
// everyone's), live while some are not settled, and the inbox.
func (s *Server) smsPage(w http.ResponseWriter, r *http.Request) {
	f := smsForm{Priority: "P2", To: r.URL.Query().Get("to")}
	p := page{}
	if n := r.URL.Query().Get("sent"); n != "" {
		p.Notice = "Queued " + plural(atoiOr(n, 0), "message") + ": each is sent as soon as a modem is free."
	}
	s.showSMS(w, r, http.StatusOK, p, f)
}

func (s *Server) showSMS(w http.ResponseWriter, r *http.Request, status int, p page, f smsForm) {
	if s.opts.SMSPages == nil {
		s.problem(w, r, http.StatusNotFound, "calq serve sends no SMS: it was started without modems or an SMS outbox.")
		return
	}
	u := user(r)
	allowed, err := s.opts.SMSPages.Allowed(r.Context(), u)
	if err != nil {
		s.internalProblem(w, r, "read your SMS rights", err)
		return
	}
	if !allowed && !u.Admin {
		s.problem(w, r, http.StatusForbidden, "Forbidden: you may not send SMS. An administrator gives the right with calq users set "+u.Name+" --sms.")
		return
	}
	v := smsView{Allowed: allowed, Admin: u.Admin, Form: f, Alphabet: gsmAlphabetOnce(), Priorities: []string{"P0", "P1", "P2", "P3"}}
	v.Before = int64(atoiOr(r.URL.Query().Get("before"), 0))
	s.readSMSLists(r, &v, int64(atoiOr(r.URL.Query().Get("inbox_before"), 0)))
	if s.opts.Contacts != nil {
		cs, _ := s.opts.Contacts.List(r.Context(), u.Name)
		for _, c := range cs {
			if c.Phone != "" {
				v.Contacts = append(v.Contacts, c)
			}
		}
	}
	p.Title, p.Nav, p.Data = "SMS", "sms", v
	s.render(w, r, status, "sms", p)
}

// readSMSLists fills v's outbox (from v.Before) and inbox (from
// inboxBefore); a list that cannot be read says so in its place.
func (s *Server) readSMSLists(r *http.Request, v *smsView, inboxBefore int64) {
	u := user(r)
	var err error
	v.Outbox, err = s.opts.SMSPages.List(r.Context(), u, smsapi.Filter{Before: v.Before, Limit: smsPageSize})
	if err != nil {
		_, v.OutboxErr, _ = s.internalError("read the sent messages", err)
	}
	v.Inbox, err = s.opts.SMSPages.Inbox(r.Context(), u, smsapi.Filter{Before: inboxBefore, Limit: smsPageSize})
	if err != nil {
		_, v.InboxErr, _ = s.internalError("read the received messages", err)
	}
	now := s.opts.now()
	v.Live = v.Before == 0 && slices.ContainsFunc(v.Outbox.Items, func(m smsapi.Message) bool { return unsettled(m, now) })
}

// smsSubmit sends the form's text to its recipients; the page then
// shows the queued messages, or says in a sentence why nothing was sent
// and keeps what was typed.
func (s *Server) smsSubmit(w http.ResponseWriter, r *http.Request) {
	if s.opts.SMSPages == nil {
		s.problem(w, r, http.StatusNotFound, "calq serve sends no SMS: it was started without modems or an SMS outbox.")
		return
	}
	if err := readFormMax(w, r, smsFormMax); err != nil {
		s.showSMS(w, r, http.StatusBadRequest, page{Error: err.Error() + "."}, smsForm{Priority: "P2"})
		return
	}
	v := r.PostForm
	f := smsForm{To: v.Get("to"), Text: strings.ReplaceAll(v.Get("text"), "\r\n", "\n"), At: v.Get("at"),
		Priority: v.Get("priority"), Flash: v.Get("flash") != "", Report: v.Get("report") != ""}
	req, msg := smsRequest(f, time.Local)
	if msg != "" {
		s.showSMS(w, r, http.StatusBadRequest, page{Error: msg}, f)
		return
	}
	acc, err := s.opts.SMSPages.Send(r.Context(), user(r), req)
	if err != nil {
		status, msg, retry := s.smsRefusal(err, user(r).Name)
		if retry > 0 {
			w.Header().Set("Retry-After", retryAfter(retry))
		}
		s.showSMS(w, r, status, page{Error: msg}, f)
		return
	}
	http.Redirect(w, r, "/messages?sent="+strconv.Itoa(len(acc)), http.StatusSeeOther)
}

// smsRequest reads the form into a request; msg says, as a sentence,
// what is missing or cannot be read. at is read in loc (the server's
// zone, which the page's times are in).
func smsRequest(f smsForm, loc *time.Location) (req smsapi.Request, msg string) {
	for _, t := range strings.FieldsFunc(f.To, func(r rune) bool { return r == ',' || r == ';' || r == '\n' }) {
		if t = strings.TrimSpace(t); t != "" {
			req.To = append(req.To, t)
		}
	}
	var missing []string
	if len(req.To) == 0 {
		missing = append(missing, "Name at least one recipient: a phone number or a contact of your address book.")
	}
	if strings.TrimSpace(f.Text) == "" {
		missing = append(missing, "Write the text to send: it is empty.")
	}
	if f.At != "" {
		at, err := time.ParseInLocation("2006-01-02T15:04", f.At, loc)
		if err != nil {
			missing = append(missing, fmt.Sprintf("The time to send at, %q, is not a date and time (2006-01-02T15:04).", f.At))
		}
		req.At = at
	}
	switch f.Priority {
	case "", "P0", "P1", "P2", "P3":
	default:
		missing = append(missing, fmt.Sprintf("The priority %q is not one of P0, P1, P2 and P3.", f.Priority))
	}
	req.Text, req.Flash, req.Report, req.Priority = f.Text, f.Flash, f.Report, f.Priority
	return req, strings.Join(missing, " ")
}

// smsRefusal is why Send refused name's message, as a page says it: the
// status, one sentence, and for a quota how long until a message fits
// again. An InputError's Err is a predicate ("is empty"), said of the
// field and its value.
func (s *Server) smsRefusal(err error, name string) (status int, msg string, retry time.Duration) {
	var ie *smsapi.InputError
	var qe *smsapi.QuotaError
	switch {
	case errors.Is(err, smsapi.ErrNotAllowed):
		return http.StatusForbidden, "Nothing was sent: you may not send SMS. An administrator gives the right with calq users set " + name + " --sms.", 0
	case errors.Is(err, pdu.ErrTooLong):
		return http.StatusBadRequest, "Nothing was sent: the text is too long: a message takes at most 255 parts (the count under the text says how many it needs).", 0
	case errors.As(err, &ie):
		why := strings.ReplaceAll(strings.TrimSuffix(ie.Err.Error(), "."), "\n", "; ")
		var field string
		switch {
		case ie.Field == "text":
			field = "the text" // the whole text again is no help
		case ie.Field == "to" && ie.Value == "":
			field = "the list of recipients"
		default:
			label := map[string]string{"to": "the recipient", "at": "the time to send at", "priority": "the priority",
				"validity": "the validity", "coding": "the coding"}[ie.Field]
			if label == "" {
				label = "the field " + ie.Field
			}
			field = fmt.Sprintf("%s %q", label, ie.Value)
		}
		return http.StatusBadRequest, "Nothing was sent: " + field + " " + why + ".", 0
	case errors.As(err, &qe):
		d := max(qe.Reset.Sub(s.opts.now()), time.Second)
		return http.StatusTooManyRequests, fmt.Sprintf("Nothing was sent: your SMS %s of %d is reached. It resets at %s.",
			qe.Which, qe.Limit, qe.Reset.Local().Format("2006-01-02 15:04:05")), d
	}
	status, msg, retry = s.internalError("queue the SMS", err)
	return status, msg + ". Nothing was sent.", retry
}

func init() { pageFuncs["delivery"] = delivery }

// delivery is what m's status reports say of it as a whole: "delivered"
// when every part's last report says so, "not delivered" when one says
// it failed, "pending" while the others wait; "" without reports (none
// asked for, or none yet).
func delivery(m smsapi.Message) string {
	reported, delivered := false, true
	for _, p := range m.Parts {
		if len(p.Reports) == 0 {
			delivered = false
			continue
		}
		reported = true
		switch p.Reports[len(p.Reports)-1].Outcome {
		case "failed":
			return "not delivered"
		case "delivered":
		default:
			delivered = false
		}
	}
	switch {
	case !reported:
		return ""
	case delivered:
		return "delivered"
	}
	return "pending"
}

// smsReportWait is how long after it was sent the SMS page keeps
// listening for a message's status reports: networks send them within
// seconds or minutes, and a message that asked for none gets none.
const smsReportWait = 10 * time.Minute

// unsettled says whether m may still change by itself at now: not yet
// with the network, or sent less than smsReportWait ago with a part
// that has no final report (delivered or failed) yet.
func unsettled(m smsapi.Message, now time.Time) bool {
	switch m.State {
	case "failed", "cancelled", "unknown":
		return false
	case "sent":
		return now.Sub(m.Updated) < smsReportWait && slices.ContainsFunc(m.Parts, func(p smsapi.Part) bool {
			return len(p.Reports) == 0 || p.Reports[len(p.Reports)-1].Outcome == "pending"
		})
	}
	return true
}

// atoiOr is s as a number, or def.
func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return def
	}
	return n
}
