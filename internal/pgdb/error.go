package pgdb

import (
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"calq/internal/dburl"
)

// Error is a failure to open the database at Addr (its URL without the
// password). Its message is one line: for a failed connection, the
// server's answer or the network's, without pgx's account of every
// address it tried (see Reason).
type Error struct {
	Addr string
	Err  error
	url  string // to scrub the password from the driver's text
}

// OpenError is err from opening the database at url, as an *Error.
func OpenError(url string, err error) error {
	return &Error{Addr: dburl.Redact(url), Err: err, url: url}
}

func (e *Error) Error() string { return dburl.Scrub(e.message(), e.url) }

func (e *Error) message() string {
	var ce *pgconn.ConnectError
	var we *WaitError
	if errors.As(e.Err, &we) {
		return "cannot connect to " + e.Addr + ": " + we.Error()
	}
	if errors.As(e.Err, &ce) {
		return "cannot connect to " + e.Addr + ": " + Reason(e.Err)
	}
	return "open " + e.Addr + ": " + Reason(e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Hint says what to check: the server, the credentials or the database.
func (e *Error) Hint() string {
	var pe *pgconn.PgError
	switch {
	case errors.As(e.Err, &pe) && strings.HasPrefix(pe.Code, "28"):
		return "check the user and password in the URL (or ~/.pgpass) and pg_hba.conf"
	case errors.As(e.Err, &pe) && strings.HasPrefix(pe.Code, "3D"):
		return "create the database (createdb), or name one that exists in the URL"
	case Transient(e.Err):
		return "is the server up, and does it take connections at that address? calq worker and calq sms daemon wait for it"
	}
	return ""
}

// Reason is the gist of err, on one line: for a failed connection, the
// server's message or the innermost network error ("connection refused",
// "timed out"); anything else as it reads, its lines (errors.Join's)
// joined by "; ".
func Reason(err error) string {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return strings.Join(strings.FieldsFunc(err.Error(), func(r rune) bool { return r == '\n' }), "; ")
	}
	var pe *pgconn.PgError
	var dns *net.DNSError
	var errno syscall.Errno
	switch {
	case errors.As(err, &pe):
		return pe.Error()
	case errors.As(err, &dns):
		return dns.Error()
	case errors.As(err, &errno):
		return errno.Error()
	case pgconn.Timeout(err):
		return "timed out"
	}
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
