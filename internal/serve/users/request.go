package users

import (
	"net/http"
	"strings"
)

// KeyFromRequest returns the API key a request carries, and whether it
// carries one. It looks, in this order, at:
//
//   - Authorization: Bearer KEY;
//   - Authorization: Basic, as Gotenberg's clients send it: the key is the
//     password, and the user name is ignored (the key alone says whose
//     it is, so a client may put anything there, its user's name for the
//     logs); with an empty password the user name is the key, as
//     "curl -u KEY:" sends it;
//   - X-Api-Key: KEY, Stirling-PDF's header.
//
// An Authorization header of another scheme, or with nothing in it, is
// passed over for X-Api-Key. Schemes are case-insensitive and spaces
// around the key are dropped. Whether the key is anyone's is
// Store.Authenticate's business.
func KeyFromRequest(r *http.Request) (string, bool) {
	if key, ok := fromAuthorization(r); ok {
		return key, true
	}
	key := strings.TrimSpace(r.Header.Get("X-Api-Key"))
	return key, key != ""
}

func fromAuthorization(r *http.Request) (string, bool) {
	if user, pass, ok := r.BasicAuth(); ok {
		if pass == "" {
			pass = user
		}
		pass = strings.TrimSpace(pass)
		return pass, pass != ""
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
