// Package smsapi is SMS over HTTP in calq serve: calq's own JSON API
// (POST /sms, GET /sms, GET /sms/{id}, DELETE /sms/{id}, GET /sms/inbox)
// under calq serve's users and keys, and the push of what becomes of a
// message (each status report and its final state to the message's
// report URL; each received message to its user's inbound webhook),
// durable and retried like the conversions' webhooks.
//
// A Service queues messages in the SMS outbox (sms.Enqueue, before any AT
// traffic); whoever holds the modems sends them: a daemon in the same
// process (calq serve with [[sms.modem]] or --device), a calq sms daemon
// on the same journal, or daemons on other hosts sharing a PostgreSQL
// outbox. The Service keeps in a table of its own (in the journal's
// file) who sent each message and where its reports go, the pushes it
// owes, and its cursors over the outbox and the inbox.
//
// Kannel's sendsms (package sendsms) sends through the same Service with
// a Push of kind PushKannel.
//
// # Rules
//
//   - Who sends: a user given the right (calq users set NAME --sms),
//     administrators too; a server without users sends nothing (sending
//     costs money), 403 naming the command that grants the right.
//   - Limits: at most Rate messages a minute (sliding) and Quota a UTC day
//     per user (its rights', else Options'), a message per recipient,
//     counted in the journal in the transaction that records them, so
//     that concurrent requests, and calq serve processes on one journal,
//     never both take the last place; 429 with Retry-After and the limit
//     and its reset in the message. A request has at most MaxRecipients
//     recipients and a body of MaxBody bytes; its text at most 255 parts.
//   - POST /sms's JSON: to (a string or a list: numbers, or contact names
//     of the user's book), text, flash, validity (a Go duration: "90m",
//     "2h"; 5 minutes to 63 weeks), report, at (RFC 3339), priority
//     (P0..P3), transliterate, reportUrl (http or https, through the
//     webhook policy; it asks for status reports). Errors are
//     {"status":N,"message":"FIELD \"VALUE\": reason"}.
//   - Visibility: a user sees its messages; another's id is 404, never
//     403. Administrators see every message (GET /sms lists those sent
//     through calq serve). GET /sms/inbox is the received messages of the
//     modems the user's rights name (a modem's name, or its number when
//     the modem is named by it); all of them for administrators.
//   - Pushes (JSON POST of an Event): sms.accepted when the network took a
//     part (its reference), sms.report for each part's status report,
//     sms.final once: failed, unknown or cancelled as the outbox says; once
//     sent, delivered or undelivered from the reports, or sent when none
//     came within ReportWait. Kannel's dlr-url gets a GET for the types of
//     its dlr-mask: 8 when a part was accepted, 1/2/4 from a report's
//     outcome, 16 when the message failed or
//     was cancelled. sms.inbound to the user's
//     inbound URL for each message received from the Service's first
//     start on. Each push is owed in the journal before its first try,
//     tried with Options.Push's backoff until delivered or its attempts
//     run out (then logged and kept as failed).
//
// # Cost
//
// Send: one write transaction for the limits, one outbox insert, one
// write to bind them. Run: each round reads every message still watched
// (its outbox row and reports) and the inbox from its cursor, writes only
// new pushes, and claims each push in a write before trying it (so that
// calq serve processes on one journal deliver it once); pushes to one
// URL go in order, one at a time, different URLs at once. Wake starts a
// round at once; Run must be running for anything to be pushed.
package smsapi

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"calq/internal/serve/users"
)

// Push kinds: where a message's status reports go, and how.
const (
	PushNone   = ""       // none
	PushJSON   = "json"   // POST of an Event as JSON to URL (reportUrl)
	PushKannel = "kannel" // GET of URL after Kannel's substitutions (dlr-url), for the types Mask selects
)

// Push is where the status reports of a message go.
type Push struct {
	Kind string `json:"kind"`
	URL  string `json:"url"`
	Mask int    `json:"mask,omitempty"` // Kannel's dlr-mask; PushKannel only
}

// Request is one send: a text to one or several recipients, each a
// message of its own.
type Request struct {
	To            []string      // numbers (E.164 or national, as sms.NormalizeNumber takes them) or contact names of the user's book
	Text          string        // UTF-8
	Flash         bool          // class 0
	Validity      time.Duration // 0: the network's default
	Report        bool          // ask the network for status reports (forced on by a Push)
	At            time.Time     // not before; zero: now
	Priority      string        // "P0".."P3"; "" P2
	Transliterate bool          // GSM 7-bit look-alikes when that makes the text fit
	Coding        string        // "" automatic, "gsm7", "8bit" or "ucs2" (Kannel's coding 0, 1, 2)
	Push          Push          // the message's report target; Kind "" none
}

// Accepted is one recipient's message as POST /sms answers it (202).
type Accepted struct {
	ID    int64  `json:"id"`
	To    string `json:"to"`    // normalized number
	Parts int    `json:"parts"` // PDUs the text takes
	State string `json:"state"` // "queued", or "scheduled" with a future At
}

// Report is one status report the network sent for a part.
type Report struct {
	Seq        int       `json:"seq"`
	Status     int       `json:"status"`  // TP-ST
	Outcome    string    `json:"outcome"` // delivered, pending or failed
	Discharged time.Time `json:"discharged,omitzero"`
	Received   time.Time `json:"received"`
}

// Part is one PDU of a message.
type Part struct {
	Seq     int       `json:"seq"`
	State   string    `json:"state"`
	Modem   string    `json:"modem,omitempty"`
	MR      *int      `json:"reference"` // the network's message reference; null until accepted
	Reason  string    `json:"reason,omitempty"`
	Updated time.Time `json:"updated"`
	Reports []Report  `json:"reports"`
}

// Message is one message as GET /sms/{id} shows it.
type Message struct {
	ID        int64     `json:"id"`
	User      string    `json:"user"`
	To        string    `json:"to"`
	Text      string    `json:"text"`
	State     string    `json:"state"` // the outbox's: queued, sending, sent, delivered, failed, cancelled …
	Reason    string    `json:"reason,omitempty"`
	Modem     string    `json:"modem,omitempty"`
	Created   time.Time `json:"created"`
	NotBefore time.Time `json:"not_before,omitzero"`
	Updated   time.Time `json:"updated"`
	Parts     []Part    `json:"parts"`
	Push      *Push     `json:"push,omitempty"`
}

// Inbound is one received (reassembled) message as GET /sms/inbox and
// the inbound webhook show it.
type Inbound struct {
	ID       int64     `json:"id"`
	Modem    string    `json:"modem"`
	From     string    `json:"from"`
	To       string    `json:"to,omitempty"` // the receiving modem's number, when known
	Text     string    `json:"text"`
	Sent     time.Time `json:"sent"`
	Received time.Time `json:"received"`
	Parts    int       `json:"parts"`
	Total    int       `json:"total"`
}

// Event is what a JSON push carries: "sms.accepted" when the network
// accepted a part (Part and MR set), "sms.report" for each status
// report (Report, Part and MR set), "sms.final" once the message reached its final state, and
// "sms.inbound" for a received message (Inbound set).
type Event struct {
	Type    string    `json:"type"`
	ID      int64     `json:"id,omitempty"` // the message's
	To      string    `json:"to,omitempty"`
	State   string    `json:"state,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	Part    int       `json:"part,omitempty"`      // sms.accepted, sms.report: the part's seq
	MR      *int      `json:"reference,omitempty"` // sms.accepted, sms.report: the network's message reference
	Report  *Report   `json:"report,omitempty"`
	Inbound *Inbound  `json:"inbound,omitempty"`
	Time    time.Time `json:"time"`
}

// Filter selects a user's messages (GET /sms) or received messages (GET
// /sms/inbox), newest first, a page at a time.
type Filter struct {
	State  string    // "" any
	To     string    // the other party: the recipient, or for the inbox the sender; "" any
	Since  time.Time // zero: any
	Before int64     // ids below this one (the previous page's Next); 0 from the newest
	Limit  int       // 0: 50; at most 500
}

// Page is one page of a listing; Next, when non-zero, is the Before of
// the next one.
type Page[T any] struct {
	Items []T   `json:"items"`
	Next  int64 `json:"next,omitempty"`
}

// Errors callers branch on; the HTTP side maps them to statuses.
var (
	ErrNotAllowed = errors.New("user may not send SMS")   // 403
	ErrNotFound   = errors.New("no such message")         // 404
	ErrNotPending = errors.New("message is with a modem") // 409: too late to cancel
)

// InputError is a request field that cannot be used (400).
type InputError struct {
	Field string // "to", "text", "reportUrl", "validity" …
	Value string
	Err   error
}

func (e *InputError) Error() string { return fmt.Sprintf("%s %q: %v", e.Field, e.Value, e.Err) }
func (e *InputError) Unwrap() error { return e.Err }

// QuotaError is a send over the user's rate or daily quota (429 with
// Retry-After).
type QuotaError struct {
	Which string    // "rate" or "daily quota"
	Limit int       // its value: messages a minute, or a day
	Reset time.Time // when a message fits again
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("SMS %s of %d reached; it resets at %s", e.Which, e.Limit, e.Reset.UTC().Format(time.RFC3339))
}

// Register adds calq's SMS routes to m, each behind auth (see
// serve.Surface).
func (s *Service) Register(m *http.ServeMux, auth func(http.Handler) http.Handler) {
	m.Handle("POST /sms", auth(http.HandlerFunc(s.handleSend)))
	m.Handle("GET /sms", auth(http.HandlerFunc(s.handleList)))
	m.Handle("GET /sms/inbox", auth(http.HandlerFunc(s.handleInbox)))
	m.Handle("GET /sms/{id}", auth(http.HandlerFunc(s.handleGet)))
	m.Handle("DELETE /sms/{id}", auth(http.HandlerFunc(s.handleCancel)))
}

// userOf is the request's user.
func userOf(r *http.Request) users.User {
	u, _ := users.FromContext(r.Context())
	return u
}
