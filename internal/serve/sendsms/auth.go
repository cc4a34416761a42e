package sendsms

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"calq/internal/kannel"
	"calq/internal/serve/throttle"
	"calq/internal/serve/users"
)

// authenticate returns the user whose name is username and whose API key
// is password: one indexed read, as for the API's keys. A wrong pair is
// kannel.ErrAuth (403) and, with a Throttle, charged to the client's
// address, which then waits (429) after the throttle's free failures.
// Only the address is charged, not the user: a user's application must
// keep sending while someone elsewhere guesses at its name.
func (h *Handler) authenticate(r *http.Request, v url.Values) (users.User, error) {
	name, key, err := kannel.Credentials(v)
	if err != nil {
		return users.User{}, err
	}
	addr := throttle.AddrKey(r.RemoteAddr)
	if h.Throttle != nil {
		if wait := h.Throttle.Wait(addr); wait > 0 {
			return users.User{}, throttled(wait)
		}
	}
	u, err := h.Users.Authenticate(r.Context(), key)
	switch {
	case err == nil && u.Name == name:
		return u, nil
	case err == nil || errors.Is(err, users.ErrUnknownKey):
		if h.Throttle != nil {
			h.Throttle.Fail(addr)
		}
		h.log().Warn("sendsms refused: wrong username or password", "address", r.RemoteAddr)
		return users.User{}, kannel.ErrAuth
	case errors.Is(err, users.ErrDisabled):
		h.log().Warn("sendsms refused: user disabled", "user", name, "address", r.RemoteAddr)
		return users.User{}, kannel.ErrAuth
	}
	return users.User{}, err
}

// throttled is the 429 of an address that must wait.
func throttled(wait time.Duration) error {
	return &kannel.Error{Status: http.StatusTooManyRequests, Reply: "Too many failed authorizations, rejected",
		Reason: "wait " + wait.Round(time.Second).String() + " before trying again", RetryAfter: wait}
}
