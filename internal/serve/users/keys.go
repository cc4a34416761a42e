package users

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"calq/internal/sqltime"
	"calq/sched/journal"
)

const (
	// KeyPrefix begins every key, so that a key is recognised in a
	// config file or a leak report.
	KeyPrefix = "calq_"
	// keyBytes of crypto/rand make a key: 256 bits, which no one guesses,
	// so a lookup by hash leaks nothing worth a timing attack.
	keyBytes = 32
	// keyLen is a key's length: KeyPrefix and keyBytes in unpadded
	// base64url.
	keyLen = len(KeyPrefix) + (keyBytes*8+5)/6
	// shownLen is how much of a key the store keeps to name it: KeyPrefix
	// and 8 characters (48 of its 256 bits).
	shownLen = len(KeyPrefix) + 8
)

// Key describes a user's key; the key itself is never stored.
type Key struct {
	Prefix  string    `json:"prefix"` // the key's first characters: "calq_AbC-12_x"
	Created time.Time `json:"created"`
}

// NewKey makes a key for the user named name and returns it: this is the
// only time it is seen, for the store keeps its SHA-256 alone. The user's
// other keys stay valid. ErrNoUser when there is no such user.
func (s *Store) NewKey(ctx context.Context, name string) (string, error) {
	key, err := s.addKey(ctx, name, false)
	if err != nil {
		return "", fmt.Errorf("new key for user %q: %w", name, err)
	}
	return key, nil
}

// RotateKey is NewKey that also revokes the user's other keys, at once.
func (s *Store) RotateKey(ctx context.Context, name string) (string, error) {
	key, err := s.addKey(ctx, name, true)
	if err != nil {
		return "", fmt.Errorf("rotate key of user %q: %w", name, err)
	}
	return key, nil
}

func (s *Store) addKey(ctx context.Context, name string, revoke bool) (string, error) {
	key, err := newKey()
	if err != nil {
		return "", err
	}
	created := sqltime.Text(s.now())
	found := false
	err = s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if found, err = userExists(ctx, tx, name); err != nil || !found {
			return err
		}
		if revoke {
			if _, err := journal.Exec(ctx, tx, `DELETE FROM user_keys WHERE user = ?`, name); err != nil {
				return err
			}
		}
		_, err = journal.Exec(ctx, tx, `INSERT INTO user_keys (hash, user, prefix, created) VALUES (?, ?, ?, ?)`,
			hashKey(key), name, key[:shownLen], created)
		return err
	})
	if err == nil && !found {
		err = ErrNoUser
	}
	return key, err
}

// userExists says whether tx sees the user named name.
func userExists(ctx context.Context, tx *sql.Tx, name string) (bool, error) {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM users WHERE name = ?`, name).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// newKey returns a random key: KeyPrefix and 32 bytes of crypto/rand in
// base64url without padding (48 characters in all).
func newKey() (string, error) {
	b := make([]byte, keyBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a key: %w", err)
	}
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// hashKey is what the store keeps of a key: its SHA-256 in lower-case hex.
func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// RevokeKeys deletes every key of the user named name and returns how
// many there were; ErrNoUser when there is no such user.
func (s *Store) RevokeKeys(ctx context.Context, name string) (int, error) {
	n, err := s.deleteOf(ctx, "user_keys", name)
	if err != nil {
		return 0, fmt.Errorf("revoke keys of user %q: %w", name, err)
	}
	return n, nil
}

// deleteOf deletes the rows of the user named name from table (user_keys
// or user_sessions, never a caller's text) and returns how many there
// were; ErrNoUser when there is no such user.
func (s *Store) deleteOf(ctx context.Context, table, name string) (int, error) {
	var n int64
	found := false
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if found, err = userExists(ctx, tx, name); err != nil || !found {
			return err
		}
		res, err := journal.Exec(ctx, tx, `DELETE FROM `+table+` WHERE user = ?`, name)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	switch {
	case err != nil:
		return 0, err // found and n are the writer's until Write returns nil
	case !found:
		return 0, ErrNoUser
	}
	return int(n), nil
}

// Keys lists the keys of the user named name, oldest first; ErrNoUser
// when there is no such user.
func (s *Store) Keys(ctx context.Context, name string) ([]Key, error) {
	ks, err := s.keys(ctx, name)
	if err == nil && len(ks) == 0 {
		_, err = s.get(ctx, name) // no keys, or no user?
	}
	if err != nil {
		return nil, fmt.Errorf("list keys of user %q: %w", name, err)
	}
	return ks, nil
}

func (s *Store) keys(ctx context.Context, name string) ([]Key, error) {
	rows, err := s.db.Query(ctx, `SELECT prefix, created FROM user_keys WHERE user = ? ORDER BY created, prefix`, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ks []Key
	for rows.Next() {
		var k Key
		var created sql.NullString
		if err := rows.Scan(&k.Prefix, &created); err != nil {
			return nil, err
		}
		if k.Created, err = sqltime.Parse(created); err != nil {
			return nil, fmt.Errorf("key %s: %w", k.Prefix, err)
		}
		ks = append(ks, k)
	}
	return ks, rows.Err()
}

// Authenticate returns the user whose key key is; ErrUnknownKey for a key
// that is no user's (never made, revoked, or its user removed), an error
// wrapping ErrDisabled for a disabled user's key. It reads
// the key's hash through the index, then compares the hashes in constant
// time.
func (s *Store) Authenticate(ctx context.Context, key string) (User, error) {
	if (len(key) != keyLen || !strings.HasPrefix(key, KeyPrefix)) && (!s.putKeys.Load() || len(key) > maxPutKey) {
		return User{}, ErrUnknownKey // not a key calq made nor one put: no need to look
	}
	want := hashKey(key)
	u, got, err := s.keyUser(ctx, want)
	if err != nil {
		return User{}, fmt.Errorf("authenticate: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return User{}, ErrUnknownKey
	}
	if u.Disabled {
		return User{}, fmt.Errorf("authenticate user %q: %w", u.Name, ErrDisabled)
	}
	return u, nil
}

// keyUser returns the user of the key whose hash is hash, and the hash
// stored; "" when there is none.
func (s *Store) keyUser(ctx context.Context, hash string) (User, string, error) {
	var got string
	u, err := s.userRow(ctx, userSelect+`, k.hash FROM users u JOIN user_keys k ON k.user = u.name WHERE k.hash = ?`, hash, &got)
	return u, got, err
}

// maxPutKey is the longest key PutKey takes.
const maxPutKey = 256

// PutKey makes key, chosen by the operator rather than drawn, a key of
// the user named name, in place of the key put before under the same
// label (shown as the key's prefix): calq serve gives the password of
// Gotenberg's Basic auth variables to their user this way, and a new
// password replaces the old one at the next start. ErrNoUser when there
// is no such user; an error when another user has the same key.
func (s *Store) PutKey(ctx context.Context, name, key, label string) error {
	if strings.TrimSpace(key) != key || key == "" || len(key) > maxPutKey {
		return fmt.Errorf("put key %s for user %q: want 1 to %d characters without spaces around them", label, name, maxPutKey)
	}
	found := false
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if found, err = userExists(ctx, tx, name); err != nil || !found {
			return err
		}
		if _, err := journal.Exec(ctx, tx, `DELETE FROM user_keys WHERE user = ? AND (prefix = ? OR hash = ?)`,
			name, label, hashKey(key)); err != nil {
			return err
		}
		_, err = journal.Exec(ctx, tx, `INSERT INTO user_keys (hash, user, prefix, created) VALUES (?, ?, ?, ?)`,
			hashKey(key), name, label, sqltime.Text(s.now()))
		return err
	})
	if err == nil && !found {
		err = ErrNoUser
	}
	if err != nil {
		return fmt.Errorf("put key %s for user %q: %w", label, name, err)
	}
	s.putKeys.Store(true)
	return nil
}
