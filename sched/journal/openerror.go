package journal

import (
	"errors"
	"fmt"
	"io/fs"

	"calq/internal/fsio"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// OpenError is why a journal could not be opened, said so that a user
// can act on it: the path, what is wrong, and (Hint) what to do.
type OpenError struct {
	Path string
	What string // "is not a calq journal (not an SQLite database)", ...
	hint string
	Err  error
}

func (e *OpenError) Error() string {
	if e.Path == "" {
		return "journal " + e.What
	}
	return fmt.Sprintf("journal %s %s", e.Path, e.What)
}
func (e *OpenError) Unwrap() error { return e.Err }

// Hint says what to do about it.
func (e *OpenError) Hint() string { return e.hint }

// Errors an OpenError wraps, for errors.Is.
var (
	ErrNotJournal = errors.New("not a journal")
	ErrReadOnly   = errors.New("journal is read-only")
	ErrLocked     = errors.New("journal is locked")
	ErrNoPath     = errors.New("no journal path")
)

// checkFile refuses a journal path that is empty (no home to put the
// default under) or that exists and is not a regular file (CALQ_DB=/dev/null,
// a directory, a FIFO), before SQLite opens it: SQLite would hang on a
// FIFO, or make "PATH-journal" and "PATH-wal" files beside a device.
func checkFile(path string) error {
	const other = "give a journal file with --db or CALQ_DB"
	if path == "" {
		return &OpenError{What: "has no path", Err: ErrNoPath,
			hint: "calq finds no home directory (HOME is unset and the user has none in /etc/passwd): " + other + ", or set XDG_STATE_HOME or HOME"}
	}
	var nr *fsio.NotRegularError
	if err := fsio.CheckTarget(path); errors.As(err, &nr) {
		return &OpenError{Path: path, What: "is " + nr.Kind + ", not a regular file", Err: err,
			hint: "calq keeps its journal in an SQLite file and writes -wal and -shm files beside it: " + other}
	}
	return nil
}

// openError explains err, which opening the journal at path gave.
func openError(path string, err error) error {
	var se *sqlite.Error
	code := -1
	if errors.As(err, &se) {
		code = se.Code() & 0xff
	}
	const other = "or give another journal with --db or CALQ_DB"
	switch {
	case code == sqlite3.SQLITE_NOTADB:
		return &OpenError{Path: path, What: "is not a calq journal (not an SQLite database)", Err: errors.Join(ErrNotJournal, err),
			hint: "restore it from a backup, " + other + "; calq never overwrites it"}
	case code == sqlite3.SQLITE_CORRUPT:
		return &OpenError{Path: path, What: "is damaged (SQLite reports it corrupt)", Err: errors.Join(ErrNotJournal, err),
			hint: "restore it from a backup (sqlite3 " + path + " .recover may save its rows), " + other}
	case code == sqlite3.SQLITE_READONLY, code == sqlite3.SQLITE_CANTOPEN, errors.Is(err, fs.ErrPermission):
		return &OpenError{Path: path, What: "cannot be written (" + cause(err) + ")", Err: errors.Join(ErrReadOnly, err),
			hint: "calq writes its journal, its directory and the -wal and -shm files beside it: run calq as their owner or fix their permissions, " + other}
	case code == sqlite3.SQLITE_BUSY, code == sqlite3.SQLITE_LOCKED:
		return &OpenError{Path: path, What: "is locked by another process", Err: errors.Join(ErrLocked, err),
			hint: "another program holds a lock on it (an sqlite3 shell or a backup?): end that, " + other}
	}
	return fmt.Errorf("open journal %s: %w", path, err)
}

// cause is err's innermost message.
func cause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}
