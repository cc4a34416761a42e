package serve

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"calq/internal/serve/throttle"
	"calq/internal/serve/users"
)

// Throttle slows down repeated failed sign-ins (*throttle.Limiter has
// it): Reserve charges an attempt before its password is checked, or
// says how long to wait; Refund takes the charge back for what was not a
// failure; Succeed forgets a user's failures.
type Throttle interface {
	Reserve(keys ...string) time.Duration
	Refund(keys ...string)
	Succeed(keys ...string)
}

// signInFormMax bounds the sign-in form, read before anyone is known: a
// name, a password and a next page fit many times over.
const signInFormMax = 8 << 10

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

// login checks a user name and password. The attempt is charged to the
// throttle, per address and per user, before the password is hashed, so
// that of many attempts sent at once only the throttle's free ones are
// checked; the hash itself waits for a place of users.Hashes, or is
// refused with 429. A success ends the browser's old session, if any,
// and starts a new one with a new id.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if s.pagesOff(w, r) {
		return
	}
	if err := readFormMax(w, r, signInFormMax); err != nil {
		s.problem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	name, password := r.PostForm.Get("user"), r.PostForm.Get("password")
	view := loginView{Name: name, Next: localPath(r.PostForm.Get("next"))}
	addr, userKey := signInKeys(name, r.RemoteAddr)
	if wait := s.reserve(addr, userKey); wait > 0 {
		s.metrics.signInRefused("throttled")
		s.refuseSignIn(w, r, view, wait, "Too many failed sign-ins: wait %s before trying again.")
		return
	}
	u, err := s.opts.Accounts.CheckPassword(r.Context(), name, password)
	if err != nil {
		s.signInFailed(w, r, view, err, addr, userKey)
		return
	}
	if s.opts.Throttle != nil {
		s.opts.Throttle.Succeed(userKey)
		s.opts.Throttle.Refund(addr) // the address keeps its failures: it may be guessing others
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

// signInKeys are the throttle's keys of a sign-in: its address's, and
// its user's when name can be a user's (a name no user can have takes
// no room in the throttle, and costs no hash).
func signInKeys(name, remoteAddr string) (addr, user string) {
	addr = throttle.AddrKey(remoteAddr)
	if users.CheckName(name) == nil {
		user = throttle.UserKey(name)
	}
	return addr, user
}

// reserve charges a sign-in to the throttle; it says how long to wait
// when it must not be tried now.
func (s *Server) reserve(keys ...string) time.Duration {
	if s.opts.Throttle == nil {
		return 0
	}
	return s.opts.Throttle.Reserve(nonEmpty(keys)...)
}

func nonEmpty(keys []string) []string {
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "" })
}

// signInFailed answers a sign-in whose check failed: 401 for a wrong
// password (the charge stays) or a disabled user, 429 when the hashes
// are all busy and 500 when the server failed (the charge is taken
// back: nothing was checked). The log names the user only when the name
// is a user's.
func (s *Server) signInFailed(w http.ResponseWriter, r *http.Request, view loginView, err error, keys ...string) {
	msg, status := "Wrong user name or password.", http.StatusUnauthorized
	switch {
	case errors.Is(err, users.ErrBusy):
		if s.opts.Throttle != nil {
			s.opts.Throttle.Refund(nonEmpty(keys)...)
		}
		s.metrics.signInRefused("busy")
		s.refuseSignIn(w, r, view, time.Second, "The server is checking many sign-ins at once: try again in %s.")
		return
	case errors.Is(err, users.ErrDisabled):
		msg = "This account is disabled: ask your administrator."
	case !errors.Is(err, users.ErrBadPassword):
		if s.opts.Throttle != nil {
			s.opts.Throttle.Refund(nonEmpty(keys)...)
		}
		s.opts.Log.Error("sign-in", "address", r.RemoteAddr, "err", err)
		msg, status = "Signing in failed on the server; try again later.", http.StatusInternalServerError
	}
	s.metrics.authFailure()
	if errors.Is(err, users.ErrNoUser) {
		s.opts.Log.Warn("sign-in refused: unknown user", "address", r.RemoteAddr)
	} else {
		s.opts.Log.Warn("sign-in refused", "user", view.Name, "address", r.RemoteAddr)
	}
	s.render(w, r, status, "login", page{Title: "Sign in", Data: view, Error: msg})
}

// refuseSignIn answers 429 with Retry-After: a sign-in not tried, for
// the throttle or a busy server; msg says the wait with %s.
func (s *Server) refuseSignIn(w http.ResponseWriter, r *http.Request, view loginView, wait time.Duration, msg string) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	s.render(w, r, http.StatusTooManyRequests, "login", page{Title: "Sign in", Data: view,
		Error: fmt.Sprintf(msg, plural(secs, "second"))})
}

// logout ends the browser's session. A cookie that is no session's
// costs a read, never a write.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(s.cookieName(r)); err == nil && s.opts.Accounts != nil {
		if _, err := s.opts.Accounts.Session(r.Context(), c.Value); err == nil {
			s.opts.Accounts.EndSession(r.Context(), c.Value)
		}
	}
	s.setSession(w, r, "")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
