// Package sendsms is Kannel's sendsms interface in calq serve (GET or
// POST /cgi-bin/sendsms), so that applications written for Kannel send
// through calq unchanged: username is a calq user, password one of its
// API keys; the message goes through smsapi's Service, its delivery
// reports to dlr-url as Kannel calls it.
//
// A Handler is safe for concurrent use. A request costs its parameters'
// parsing (bounded by maxBody), one indexed read to authenticate, and
// the Sender's Send.
package sendsms

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"calq/internal/kannel"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
)

// Sender is what sendsms needs of smsapi (*smsapi.Service does).
type Sender interface {
	Send(ctx context.Context, u users.User, r smsapi.Request) ([]smsapi.Accepted, error)
}

// Authenticator finds the user of an API key (*users.Store does).
type Authenticator interface {
	Authenticate(ctx context.Context, key string) (users.User, error)
}

// Throttle slows down guessing keys (*throttle.Limiter has it): Wait
// says how long an attempt under keys must wait, Fail charges a failed
// one.
type Throttle interface {
	Wait(keys ...string) time.Duration
	Fail(keys ...string)
}

// Handler serves /cgi-bin/sendsms.
type Handler struct {
	Sender Sender
	Users  Authenticator
	// Throttle, when set, slows down an address that sends wrong
	// passwords (the sign-in pages' limiter, so that one guesser is
	// slowed on both); nil: none, as for the API's keys.
	Throttle Throttle
	Now      func() time.Time // the clock of deferred; nil: time.Now
	Log      *slog.Logger     // nil: slog.Default()
}

// Register adds GET and POST /cgi-bin/sendsms to m, without the server's
// auth: Kannel's clients send username and password as parameters.
func (h *Handler) Register(m *http.ServeMux, auth func(http.Handler) http.Handler) {
	m.Handle("GET /cgi-bin/sendsms", h)
	m.Handle("POST /cgi-bin/sendsms", h)
}

// ServeHTTP answers one sendsms request: 202 with Kannel's "0: Accepted
// for delivery" (or "3: Queued for later delivery" for a deferred
// message) once its messages are in the outbox, else Kannel's status
// and sentence (see kannel.Error and sendError).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead { // the mux gives GET's HEAD: a HEAD must send nothing
		w.Header().Set("Allow", "GET, POST")
		h.refuse(w, &kannel.Error{Status: http.StatusMethodNotAllowed, Reply: "Method not allowed, rejected", Reason: "sendsms takes GET or POST"})
		return
	}
	v, err := params(w, r)
	if err != nil {
		h.refuse(w, err)
		return
	}
	u, err := h.authenticate(r, v)
	if err != nil {
		h.refuse(w, err)
		return
	}
	s, err := kannel.ParseSend(v)
	if err != nil {
		h.refuse(w, err)
		return
	}
	acc, err := h.Sender.Send(r.Context(), u, request(s, h.now()))
	if err != nil {
		h.refuse(w, h.sendError(u, err))
		return
	}
	h.log().Debug("sendsms accepted", "user", u.Name, "messages", len(acc), "ignored", s.Ignored)
	reply(w, http.StatusAccepted, accepted(acc))
}

// accepted is the reply to a send: queued for later when its messages
// wait for a time to come.
func accepted(acc []smsapi.Accepted) string {
	for _, a := range acc {
		if a.State == "scheduled" {
			return kannel.ReplyQueued
		}
	}
	return kannel.ReplyAccepted
}

// refuse answers err: a *kannel.Error's status and body, else 503.
func (h *Handler) refuse(w http.ResponseWriter, err error) {
	var e *kannel.Error
	if !errors.As(err, &e) {
		h.log().Error("sendsms", "err", err)
		e = &kannel.Error{Status: http.StatusServiceUnavailable, Reply: "Sending failed.", Reason: "calq could not take the message now: try again later."}
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(max(1, int64((e.RetryAfter+time.Second-1)/time.Second)), 10))
	}
	reply(w, e.Status, e.Error())
}

func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func (h *Handler) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

func (h *Handler) log() *slog.Logger {
	if h.Log == nil {
		return slog.Default()
	}
	return h.Log
}
