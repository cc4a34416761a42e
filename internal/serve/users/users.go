// Package users is who may call calq serve: users (a name, an admin flag,
// the config profile their conversions use, a password, whether they are
// disabled), their API keys and their browser sessions, kept in tables of
// the journal's file that this package creates and upgrades by its own
// migrations.
//
// Open returns the Store; Add, Get, List, Count, Remove, SetAdmin,
// SetProfile, SetPassword and SetDisabled manage users (the guard
// KeepAdmin keeps an enabled administrator); NewKey,
// RotateKey, RevokeKeys and Keys their keys; Authenticate finds the user
// of a key, and KeyFromRequest reads a key from an HTTP request.
// CheckPassword signs a user in, NewSession gives it a session token,
// Session finds the user of a token, EndSession and EndSessions sign out.
//
// A key or a session token is shown once, when it is made: the store
// keeps only its SHA-256 (and, of a key, a short prefix that names it in
// lists). Authenticate and Session cost one indexed read. A password is
// kept as an argon2id hash; CheckPassword and SetPassword cost one hash,
// some 20 ms of a core and 19 MiB of memory, and pass through the
// process's HashGate, Hashes: beyond its Max hashes at once they fail
// with ErrBusy. A user has at most MaxSessions sessions. A Store is safe
// for concurrent use, also by several processes on one file.
package users

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// schema is version 1 of the package's tables. hash is the lower-case hex
// SHA-256 of a key, never the key.
const schema = `
CREATE TABLE IF NOT EXISTS users (
	name    TEXT PRIMARY KEY,
	admin   INTEGER NOT NULL DEFAULT 0,
	profile TEXT NOT NULL DEFAULT '', -- a [profiles.NAME] of the config file, '' none
	created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS user_keys (
	hash    TEXT PRIMARY KEY,
	user    TEXT NOT NULL,
	prefix  TEXT NOT NULL, -- the key's first characters, to tell keys apart
	created TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS user_keys_user ON user_keys (user);
`

// schemaV2 adds passwords, disabled users and browser sessions. password
// is an argon2id hash in PHC string form, ” none (no sign-in); hash is
// the lower-case hex SHA-256 of a session token, never the token.
const schemaV2 = `
ALTER TABLE users ADD COLUMN password TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS user_sessions (
	hash    TEXT PRIMARY KEY,
	user    TEXT NOT NULL,
	created TEXT NOT NULL,
	expires TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS user_sessions_user ON user_sessions (user);
`

// DB is what Store needs of the journal (*journal.Journal has it).
type DB interface {
	Migrate(ctx context.Context, pkg string, migrations []string) error
	Write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Store is the users and keys in the journal's file. It is safe for
// concurrent use.
type Store struct {
	db     DB
	now    func() time.Time
	hashes *HashGate // the process's Hashes
	// putKeys: PutKey gave a key of the operator's choosing, which
	// Authenticate then looks up whatever its form.
	putKeys atomic.Bool
}

// Open creates or upgrades the tables of users and keys in db.
func Open(ctx context.Context, db DB) (*Store, error) {
	if err := db.Migrate(ctx, "users", []string{schema, schemaV2, schemaV3}); err != nil {
		return nil, fmt.Errorf("open the users: %w", err)
	}
	now := time.Now
	if c, ok := db.(interface{ Now() time.Time }); ok {
		now = c.Now // the journal's clock, so that tests can set it
	}
	return &Store{db: db, now: now, hashes: Hashes}, nil
}

// Errors that callers branch on.
var (
	ErrNoUser     = errors.New("no such user")
	ErrUserExists = errors.New("user already exists")
	ErrUnknownKey = errors.New("unknown API key")
	// ErrBadPassword is a failed sign-in: an unknown user, a user without
	// a password, or a wrong password, which callers must not tell apart
	// to whoever signs in.
	ErrBadPassword = errors.New("wrong user name or password")
	// ErrDisabled is a disabled user's right password or API key.
	ErrDisabled = errors.New("user is disabled")
	// ErrInvalidPassword is a new password that ValidatePassword refuses.
	ErrInvalidPassword = errors.New("invalid password")
	// ErrNoSession is a session token that is no one's: never made,
	// ended, expired, or its user disabled or removed.
	ErrNoSession = errors.New("no such session")
)

// User is someone who may call calq serve.
type User struct {
	Name    string    `json:"name"`
	Admin   bool      `json:"admin"`
	Profile string    `json:"profile"` // a [profiles.NAME] of the config file; "" none
	Keys    int       `json:"keys"`    // how many keys the user has
	Created time.Time `json:"created"` // UTC
	// Password says whether the user has a password, without which it
	// cannot sign in to the web pages.
	Password bool `json:"password"`
	// Disabled users can neither sign in nor use their API keys; they
	// keep their keys, jobs and password for when they are enabled again.
	Disabled bool `json:"disabled"`
	// SMS says whether the user may send SMS (SMSRights has the rest).
	SMS bool `json:"sms"`
}

// NameError is a user name or profile name that cannot be stored.
type NameError struct {
	Field string // "name" or "profile"
	Value string
	Err   error // what is wrong, as a predicate: "is empty"
}

func (e *NameError) Error() string { return fmt.Sprintf("%s %q %v", e.Field, e.Value, e.Err) }
func (e *NameError) Unwrap() error { return e.Err }

// MaxNameLen is the longest user name, in bytes (all ASCII).
const MaxNameLen = 64

// CheckName checks a user name: 1 to MaxNameLen ASCII letters, digits and
// '.', '_', '-', '@'. ASCII only, because a name is typed in scripts and
// read in logs, where 'а' (Cyrillic) and 'a' would look alike; no ':',
// which HTTP Basic auth cannot carry in a user name; '@' so that an
// e-mail address can be a name. Names are case-sensitive. Its errors are
// *NameError.
func CheckName(name string) error {
	var err error
	switch {
	case name == "":
		err = errors.New("is empty")
	case len(name) > MaxNameLen:
		err = fmt.Errorf("is longer than %d characters", MaxNameLen)
	default:
		if i := strings.IndexFunc(name, notNameRune); i >= 0 {
			r, _ := utf8.DecodeRuneInString(name[i:])
			err = fmt.Errorf("contains %q: a name has only letters a-z and A-Z, digits and . _ - @", r)
		}
	}
	if err != nil {
		return &NameError{"name", name, err}
	}
	return nil
}

func notNameRune(r rune) bool {
	return !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-@", r)))
}

// checkProfile checks that a profile name can be stored as text; whether
// the config file defines it is the caller's business.
func checkProfile(p string) error {
	var err error
	switch {
	case !utf8.ValidString(p):
		err = errors.New("is not UTF-8 text")
	case strings.ContainsFunc(p, unicode.IsControl):
		err = errors.New("contains a control character")
	}
	if err != nil {
		return &NameError{"profile", p, err}
	}
	return nil
}
