package serve

import (
	"database/sql"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// journalRetry is the Retry-After of a request refused because the
// journal was busy: its writes wait 10 s for a lock before they fail.
const journalRetry = 10 * time.Second

// internalError is what a reply may say of err, a failure of the server's
// own (its disk, its journal, a bug), not of the request: a status, one
// sentence for people, and when to try again (0: no Retry-After). A full
// disk is 507, a busy or locked journal 503 with Retry-After, anything
// else 500. The sentence never holds err's text, which names the
// server's paths and internals: the whole error goes to the log, with
// what (the operation, "accept a request").
func (s *Server) internalError(what string, err error) (status int, msg string, retry time.Duration) {
	s.opts.Log.Error(what, "err", err)
	switch {
	case diskFull(err):
		return http.StatusInsufficientStorage,
			"Insufficient Storage: calq serve's disk is full; try again once its administrator has made room", 0
	case journalBusy(err):
		return http.StatusServiceUnavailable,
			"Service Unavailable: calq serve's journal is locked by another program; try again shortly", journalRetry
	}
	return http.StatusInternalServerError,
		"Internal Server Error: calq serve could not " + what + "; the cause is in its log", 0
}

// internalProblem is failInternal for a page: the problem page says it.
func (s *Server) internalProblem(w http.ResponseWriter, r *http.Request, what string, err error) {
	status, msg, retry := s.internalError(what, err)
	if retry > 0 {
		w.Header().Set("Retry-After", retryAfter(retry))
	}
	s.problem(w, r, status, msg)
}

// failInternal answers err as internalError says, as one plain-text
// sentence (with Retry-After when there is one).
func (s *Server) failInternal(w http.ResponseWriter, what string, err error) {
	status, msg, retry := s.internalError(what, err)
	if retry > 0 {
		w.Header().Set("Retry-After", retryAfter(retry))
	}
	fail(w, status, msg)
}

// diskFull says whether err is a file system out of space or quota, or
// SQLite saying so of the journal.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || sqliteCode(err) == sqlite3.SQLITE_FULL
}

// journalBusy says whether err is SQLite's busy or locked: another
// connection, often another program, held the journal's lock for longer
// than the busy timeout.
func journalBusy(err error) bool {
	c := sqliteCode(err)
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

// sqliteCode is the primary result code of the SQLite error in err's
// chain, or -1.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return -1
	}
	return se.Code() & 0xff
}

// refusedChange is what a page says of err, the failure of what a person
// asked (a change on the users, contacts or profiles page, a history
// query): err's own words when it is about the request (a taken name, a
// short password, a bad date), 400; internalError's when it is the
// server's own failure (what), whose text would name its files.
func (s *Server) refusedChange(what string, err error) (status int, msg string) {
	if serverFault(err) {
		status, msg, _ = s.internalError(what, err)
		return status, msg
	}
	return http.StatusBadRequest, err.Error()
}

// serverFault says whether err comes from the server's disk, journal or
// system rather than from what a request said.
func serverFault(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	return sqliteCode(err) != -1 || diskFull(err) || errors.As(err, &pe) || errors.As(err, &le) ||
		errors.As(err, &se) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, sql.ErrTxDone)
}
