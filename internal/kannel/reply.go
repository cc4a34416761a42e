package kannel

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Kannel's replies to a sendsms that it took (202 Accepted).
const (
	ReplyAccepted = "0: Accepted for delivery"
	ReplyQueued   = "3: Queued for later delivery"
)

// Error is a sendsms request refused: its HTTP status and reply. Reply
// is Kannel's sentence where Kannel has one ("Authorization failed for
// sendsms", "Missing receiver number, rejected", "<Name> field misformed,
// rejected"), in its style where it has none; calq adds which parameter
// and value, and why.
type Error struct {
	Status int    // the HTTP status
	Reply  string // the sentence a Kannel client may match
	Param  string // the parameter at fault; "" none
	Value  string // its value as given
	Reason string // why, in calq's words; "" none
	// RetryAfter is when to try again, for a 429 or 503; 0 none.
	RetryAfter time.Duration
}

// Error is the reply's body: Reply, then the parameter, its value and
// the reason when there are.
func (e *Error) Error() string {
	s := e.Reply
	if e.Param != "" {
		s += fmt.Sprintf(": %s %q", e.Param, e.Value)
	}
	switch {
	case e.Reason != "" && strings.HasSuffix(s, "."):
		s += " " + e.Reason
	case e.Reason != "":
		s += ": " + e.Reason
	}
	return s
}

// ErrAuth is a sendsms whose username and password are not a user's name
// and one of its API keys (or are missing).
var ErrAuth = &Error{Status: http.StatusForbidden, Reply: "Authorization failed for sendsms"}

// misformed is the 400 of a parameter whose value calq cannot use.
func misformed(name, param, value, reason string) *Error {
	return &Error{Status: http.StatusBadRequest, Reply: name + " field misformed, rejected", Param: param, Value: value, Reason: reason}
}
