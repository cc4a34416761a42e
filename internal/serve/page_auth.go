package serve

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"calq/internal/serve/throttle"
	"calq/internal/serve/users"
)

// Throttle slows down repeated failed sign-ins (*throttle.Limiter has
// it): Wait says how long before the keys may try again.
type Throttle interface {
	Wait(keys ...string) time.Duration
	Fail(keys ...string)
	Succeed(keys ...string)
}

type loginView struct {
	Name string
	Next string
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if s.pagesOff(w, r) {
		return
	}
	s.render(w, r, http.StatusOK, "login", page{Title: "Sign in", Data: loginView{Next: localPath(r.URL.Query().Get("next"))}})
}

// login checks a user name and password, slowed down per user and per
// address after repeated failures; a success ends the browser's old
// session, if any, and starts a new one with a new id.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if s.pagesOff(w, r) {
		return
	}
	if err := readForm(w, r); err != nil {
		s.problem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	name, password := r.PostForm.Get("user"), r.PostForm.Get("password")
	view := loginView{Name: name, Next: localPath(r.PostForm.Get("next"))}
	keys := []string{throttle.UserKey(name), throttle.AddrKey(r.RemoteAddr)}
	if s.opts.Throttle != nil {
		if wait := s.opts.Throttle.Wait(keys...); wait > 0 {
			secs := int(math.Ceil(wait.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			s.render(w, r, http.StatusTooManyRequests, "login", page{Title: "Sign in", Data: view,
				Error: fmt.Sprintf("Too many failed sign-ins: wait %d seconds before trying again.", secs)})
			return
		}
	}
	u, err := s.opts.Accounts.CheckPassword(r.Context(), name, password)
	if err != nil {
		msg := "Wrong user name or password."
		status := http.StatusUnauthorized
		switch {
		case errors.Is(err, users.ErrDisabled):
			msg = "This account is disabled: ask your administrator."
		case !errors.Is(err, users.ErrBadPassword):
			s.opts.Log.Error("sign-in", "err", err)
			msg, status = "Signing in failed on the server; try again later.", http.StatusInternalServerError
		}
		if s.opts.Throttle != nil && status == http.StatusUnauthorized {
			s.opts.Throttle.Fail(keys...)
		}
		s.metrics.authFailure()
		s.opts.Log.Warn("sign-in refused", "user", name, "address", r.RemoteAddr)
		s.render(w, r, status, "login", page{Title: "Sign in", Data: view, Error: msg})
		return
	}
	if s.opts.Throttle != nil {
		s.opts.Throttle.Succeed(keys[0]) // the address stays slowed: it may be guessing others
	}
	if c, err := r.Cookie(s.cookieName(r)); err == nil {
		s.opts.Accounts.EndSession(r.Context(), c.Value)
	}
	token, err := s.opts.Accounts.NewSession(r.Context(), u.Name, s.opts.SessionTTL)
	if err != nil {
		s.opts.Log.Error("start a session", "user", u.Name, "err", err)
		s.problem(w, r, http.StatusInternalServerError, "Signing in failed on the server; try again later.")
		return
	}
	s.opts.Log.Info("signed in", "user", u.Name, "address", r.RemoteAddr)
	s.setSession(w, r, token)
	http.Redirect(w, r, view.Next, http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(s.cookieName(r)); err == nil && s.opts.Accounts != nil {
		s.opts.Accounts.EndSession(r.Context(), c.Value)
	}
	s.setSession(w, r, "")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
