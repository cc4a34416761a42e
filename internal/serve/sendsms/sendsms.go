// Package sendsms is Kannel's sendsms interface in calq serve (GET or
// POST /cgi-bin/sendsms), so that applications written for Kannel send
// through calq unchanged: username is a calq user, password one of its
// API keys; the message goes through smsapi's Service, its delivery
// reports to dlr-url as Kannel calls it.
package sendsms

import (
	"context"
	"net/http"

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

// Handler serves /cgi-bin/sendsms.
type Handler struct {
	Sender Sender
	Users  Authenticator
}

// Register adds GET and POST /cgi-bin/sendsms to m, without the server's
// auth: Kannel's clients send username and password as parameters.
func (h *Handler) Register(m *http.ServeMux, auth func(http.Handler) http.Handler) {
	m.Handle("GET /cgi-bin/sendsms", h)
	m.Handle("POST /cgi-bin/sendsms", h)
}

// ServeHTTP answers one sendsms request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "sendsms not built yet", http.StatusNotImplemented)
}
