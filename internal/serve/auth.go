package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"calq/internal/serve/users"
)

// usersTTL is how long calq serve trusts that it has users once it
// counted some: a request without credentials reads nothing from the
// journal meanwhile.
const usersTTL = 5 * time.Second

// maxStreamsPerUser is how many event streams (a job's page, live) one
// user may hold open at once; beyond, 429.
const maxStreamsPerUser = 16

// guard holds what bounds the work a request can make calq serve do
// before, or just after, it is known whose it is.
type guard struct {
	cop       *http.CrossOriginProtection
	usersSeen atomic.Int64 // when users were last counted and found, Unix ns; 0 never

	mu      sync.Mutex
	streams map[string]int // event streams open, by user
}

func newGuard() *guard {
	return &guard{cop: http.NewCrossOriginProtection(), streams: map[string]int{}}
}

// auth lets a request through with a valid API key (a bearer token, in
// X-Api-Key, or as Basic auth's password) or, for a browser signed in to
// the pages, a valid session cookie, its user in the context; before the
// first user exists, anyone (but with Options.RequireUsers, no one). First it refuses a write that a browser
// sent from another site (crossSite), whatever it carries: a browser
// adds cached Basic credentials and cookies to such a request itself.
// A request without credentials costs no read of the journal while
// usersExist remembers that there are users; one with a key or a
// session token of the right length, one indexed read.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.crossSite(w, r) {
			return
		}
		if s.opts.Users == nil {
			next.ServeHTTP(w, r)
			return
		}
		u, err := s.apiUser(r)
		if err == nil {
			next.ServeHTTP(w, r.WithContext(users.WithUser(r.Context(), u)))
			return
		}
		exist, cerr := s.usersExist(r.Context(), s.opts.Users)
		switch {
		case cerr != nil:
			s.failInternal(w, "read its users", cerr)
			return
		case !exist && s.opts.RequireUsers:
			fail(w, http.StatusServiceUnavailable, "Service Unavailable: calq serve has no users; add one with calq users add")
			return
		case !exist:
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="calq", charset="UTF-8"`)
		if errors.Is(err, errNoCredentials) {
			fail(w, http.StatusUnauthorized, "Unauthorized: give an API key as a bearer token, in X-Api-Key, or as the Basic auth password")
			return
		}
		s.metrics.authFailure()
		fail(w, http.StatusUnauthorized, "Unauthorized: the API key is not valid")
	})
}

var errNoCredentials = errors.New("no API key and no session")

// apiUser is the user of the request's API key or, without one, of its
// session cookie: a signed-in browser opening /jobs/ID is not asked for
// Basic credentials.
func (s *Server) apiUser(r *http.Request) (users.User, error) {
	if key, ok := users.KeyFromRequest(r); ok {
		return s.opts.Users.Authenticate(r.Context(), key)
	}
	if s.opts.Accounts == nil {
		return users.User{}, errNoCredentials
	}
	c, err := r.Cookie(s.cookieName(r))
	if err != nil {
		return users.User{}, errNoCredentials
	}
	u, err := s.opts.Accounts.Session(r.Context(), c.Value)
	if err != nil {
		return users.User{}, errNoCredentials // an ended session is no credential
	}
	return u, nil
}

// crossSite refuses, with 403 and a sentence, a write (POST, PUT,
// DELETE...) that a browser sent from another site: Sec-Fetch-Site
// other than same-origin or none, or else an Origin that is not this
// server's (http.CrossOriginProtection's rules). Gotenberg's clients
// send neither header; calq's own pages send same-origin.
func (s *Server) crossSite(w http.ResponseWriter, r *http.Request) bool {
	if s.guard.cop.Check(r) == nil {
		return false
	}
	fail(w, http.StatusForbidden, "Forbidden: a browser sent this request from another site (Sec-Fetch-Site or Origin); "+
		"calq serve's API takes writes from its own pages and from programs, not from other sites' pages")
	return true
}

// usersExist says whether calq serve has users, so that requests must
// authenticate, counting them with us. A yes is remembered for usersTTL;
// a no is not, so that the first user, added by calq users in another
// process, counts at once. (The last user's removal counts within
// usersTTL; meanwhile requests need a key that no one has.)
func (s *Server) usersExist(ctx context.Context, us Users) (bool, error) {
	now := s.opts.now()
	if seen := s.guard.usersSeen.Load(); seen != 0 && now.Sub(time.Unix(0, seen)) < usersTTL {
		return true, nil
	}
	n, err := us.Count(ctx)
	if err != nil {
		return false, err
	}
	if n > 0 {
		s.guard.usersSeen.Store(now.UnixNano())
	}
	return n > 0, nil
}

// user is the request's user; the zero User without authentication.
func user(r *http.Request) users.User {
	u, _ := users.FromContext(r.Context())
	return u
}

// owner is whose jobs a user sees: "*" for an administrator.
func owner(u users.User) string {
	if u.Admin {
		return "*"
	}
	return u.Name
}

// streamLimit lets a user hold at most maxStreamsPerUser event streams
// open at once: each holds a connection and a goroutine until its job
// ends, which may be hours for a queued one. Beyond, 429 with
// Retry-After; the job's page then shows its state without live updates.
func (s *Server) streamLimit(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := user(r).Name
		g := s.guard
		g.mu.Lock()
		full := g.streams[name] >= maxStreamsPerUser
		if !full {
			g.streams[name]++
		}
		g.mu.Unlock()
		if full {
			w.Header().Set("Retry-After", "10")
			s.problem(w, r, http.StatusTooManyRequests, fmt.Sprintf(
				"Too many live pages (a job's, the SMS page): you have %d open. Close some, then reload this one.", maxStreamsPerUser))
			return
		}
		defer func() {
			g.mu.Lock()
			if g.streams[name]--; g.streams[name] == 0 {
				delete(g.streams, name)
			}
			g.mu.Unlock()
		}()
		next(w, r)
	}
}
