package users

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"calq/internal/sqltime"
	"calq/sched/journal"
)

// MaxSessions is how many sessions a user keeps at most: a sign-in
// beyond them ends the user's oldest, so that signing in again and again
// does not grow the table.
const MaxSessions = 20

// sessionLen is a session token's length: keyBytes of crypto/rand in
// unpadded base64url.
const sessionLen = (keyBytes*8 + 5) / 6

// NewSession starts a browser session of the user named name, valid for
// ttl, and returns its token: 256 random bits in unpadded base64url, seen
// only now, for the store keeps its SHA-256 alone. ErrNoUser when there
// is no such user, ErrDisabled when it is disabled. It also deletes every
// user's expired sessions, and the user's oldest beyond MaxSessions.
func (s *Store) NewSession(ctx context.Context, name string, ttl time.Duration) (string, error) {
	token, err := s.newSession(ctx, name, ttl)
	if err != nil {
		return "", fmt.Errorf("new session for user %q: %w", name, err)
	}
	return token, nil
}

func (s *Store) newSession(ctx context.Context, name string, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		return "", fmt.Errorf("a session's time to live is %v, want more than 0", ttl)
	}
	key, err := newKey()
	if err != nil {
		return "", err
	}
	token := key[len(KeyPrefix):]
	now := s.now()
	found, disabled := false, false
	err = s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT disabled FROM users WHERE name = ?`, name).Scan(&disabled)
		if found = err == nil; !found || disabled {
			if errors.Is(err, sql.ErrNoRows) {
				err = nil
			}
			return err
		}
		if _, err := journal.Exec(ctx, tx, `DELETE FROM user_sessions WHERE expires <= ?`, sqltime.Text(now)); err != nil {
			return err
		}
		// The oldest first; of one time, the first made (rowid).
		if _, err := journal.Exec(ctx, tx, `DELETE FROM user_sessions WHERE user = ? AND rowid NOT IN
			(SELECT rowid FROM user_sessions WHERE user = ? ORDER BY created DESC, rowid DESC LIMIT ?)`,
			name, name, MaxSessions-1); err != nil {
			return err
		}
		_, err = journal.Exec(ctx, tx, `INSERT INTO user_sessions (hash, user, created, expires) VALUES (?, ?, ?, ?)`,
			hashKey(token), name, sqltime.Text(now), sqltime.Text(now.Add(ttl)))
		return err
	})
	switch {
	case err != nil:
	case !found:
		err = ErrNoUser
	case disabled:
		err = ErrDisabled
	}
	return token, err
}

// Session returns the user of the session whose token is token;
// ErrNoSession when there is none: never made, ended, expired, or its
// user disabled or removed. An expired session's row is deleted then.
// Like Authenticate, it reads the token's hash through the index and
// compares the hashes in constant time.
func (s *Store) Session(ctx context.Context, token string) (User, error) {
	if len(token) != sessionLen {
		return User{}, ErrNoSession // not a token calq made: no need to look
	}
	want := hashKey(token)
	u, got, expires, err := s.sessionUser(ctx, want)
	if err != nil {
		return User{}, fmt.Errorf("find session: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 || u.Disabled {
		return User{}, ErrNoSession
	}
	if !s.now().Before(expires) {
		if _, err := s.exec(ctx, `DELETE FROM user_sessions WHERE hash = ?`, want); err != nil {
			return User{}, fmt.Errorf("delete expired session: %w", err)
		}
		return User{}, ErrNoSession
	}
	return u, nil
}

// sessionUser returns the user of the session whose hash is hash, the
// hash stored ("" when there is none) and when the session expires.
func (s *Store) sessionUser(ctx context.Context, hash string) (User, string, time.Time, error) {
	var got string
	var expires sql.NullString
	u, err := s.userRow(ctx, userSelect+`, t.hash, t.expires FROM users u JOIN user_sessions t ON t.user = u.name WHERE t.hash = ?`, hash, &got, &expires)
	if err != nil {
		return User{}, "", time.Time{}, err
	}
	t, err := sqltime.Parse(expires)
	if err != nil {
		return User{}, "", time.Time{}, fmt.Errorf("session of user %q: %w", u.Name, err)
	}
	return u, got, t, nil
}

// EndSession ends the session whose token is token (signs out). A token
// that is no session's is not an error: signing out twice is fine. What
// is not a token calq made costs nothing.
func (s *Store) EndSession(ctx context.Context, token string) error {
	if len(token) != sessionLen {
		return nil
	}
	if _, err := s.exec(ctx, `DELETE FROM user_sessions WHERE hash = ?`, hashKey(token)); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// EndSessions ends every session of the user named name and returns how
// many there were, expired ones included; ErrNoUser when there is no
// such user.
func (s *Store) EndSessions(ctx context.Context, name string) (int, error) {
	n, err := s.deleteOf(ctx, "user_sessions", name)
	if err != nil {
		return 0, fmt.Errorf("end sessions of user %q: %w", name, err)
	}
	return n, nil
}
