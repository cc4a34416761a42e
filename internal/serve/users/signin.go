package users

import (
	"context"
	"database/sql"
	"fmt"

	"calq/sched/journal"
)

// SetPassword sets the password of the user named name, which signs it
// in to the web pages, and ends its sessions: whoever knew the old
// password is signed out. The password must pass ValidatePassword;
// ErrNoUser when there is no such user, ErrBusy when Hashes is full.
func (s *Store) SetPassword(ctx context.Context, name, password string) error {
	err := ValidatePassword(password)
	var phc string
	if err == nil {
		phc, err = s.hash(password)
	}
	if err == nil {
		err = s.changeUser(ctx, true, nil, `UPDATE users SET password = ? WHERE name = ?`, phc, name)
	}
	if err != nil {
		return fmt.Errorf("set password of user %q: %w", name, err)
	}
	return nil
}

// hash is hashPassword within a place of s.hashes.
func (s *Store) hash(password string) (string, error) {
	if !s.hashes.TryEnter() {
		return "", ErrBusy
	}
	defer s.hashes.Leave()
	return hashPassword(password)
}

// SetDisabled disables or enables the user named name; ErrNoUser when
// there is none. Disabling ends the user's sessions, and until it is
// enabled again CheckPassword and Authenticate refuse it with ErrDisabled
// and NewSession refuses it. Its keys, password and jobs stay. Disabling
// checks guards (KeepAdmin).
func (s *Store) SetDisabled(ctx context.Context, name string, disabled bool, guards ...Guard) error {
	if !disabled {
		guards = nil // enabling takes nothing away
	}
	if err := s.changeUser(ctx, disabled, guards, `UPDATE users SET disabled = ? WHERE name = ?`, disabled, name); err != nil {
		return fmt.Errorf("set disabled of user %q: %w", name, err)
	}
	return nil
}

// changeUser runs a statement that changes one user, ErrNoUser when it
// changes none, after checking guards, and with endSessions deletes the
// user's sessions in the same transaction. The user's name is the
// statement's last argument.
func (s *Store) changeUser(ctx context.Context, endSessions bool, guards []Guard, query string, args ...any) error {
	var n int64
	refused := false
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if refused, err = refuses(ctx, tx, args[len(args)-1].(string), guards); err != nil || refused {
			return err
		}
		res, err := journal.Exec(ctx, tx, query, args...)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 || !endSessions {
			return err
		}
		_, err = journal.Exec(ctx, tx, `DELETE FROM user_sessions WHERE user = ?`, args[len(args)-1])
		return err
	})
	if err != nil {
		return err // refused and n are the writer's until Write returns nil
	}
	return userError(refused, n)
}

// userError is the error of a change of one user that was written:
// ErrLastAdmin when a guard refused it, ErrNoUser when it changed
// no row.
func userError(refused bool, n int64) error {
	switch {
	case refused:
		return ErrLastAdmin
	case n == 0:
		return ErrNoUser
	}
	return nil
}

// CheckPassword signs in: it returns the user named name when password is
// its password. It is ErrBadPassword for an unknown user, a user without
// a password and a wrong password alike, each after one argon2id hash so
// that the time taken does not tell them apart; an error wrapping
// ErrDisabled for a disabled user's right password (a wrong one is
// ErrBadPassword: only who knows the password learns that the account is
// disabled). An unknown user's error also wraps ErrNoUser, for the
// caller's log alone, and does not repeat the name, which may be a
// password typed in the wrong field. A name that CheckName refuses, or a
// password longer than MaxPasswordLen, is no user's: ErrBadPassword at
// once, without a hash (these rules are public, so the time tells
// nothing). ErrBusy, without a hash or a read, when Hashes is full. It
// does not slow down repeated failures: that is the caller's (see
// package throttle).
func (s *Store) CheckPassword(ctx context.Context, name, password string) (User, error) {
	if CheckName(name) != nil {
		return User{}, fmt.Errorf("check password: %w: %w", ErrBadPassword, ErrNoUser)
	}
	if len(password) > MaxPasswordLen {
		return User{}, fmt.Errorf("check password of user %q: %w", name, ErrBadPassword)
	}
	if !s.hashes.TryEnter() {
		return User{}, fmt.Errorf("check password: %w", ErrBusy)
	}
	defer s.hashes.Leave()
	u, phc, err := s.passwordOf(ctx, name)
	if err != nil {
		return User{}, fmt.Errorf("check password: %w", err)
	}
	known := phc != ""
	if !known {
		phc = dummyHash()
	}
	ok, err := verifyPassword(phc, password)
	switch {
	case err != nil:
		return User{}, fmt.Errorf("check password of user %q: stored hash: %w", name, err)
	case u.Name == "":
		return User{}, fmt.Errorf("check password: %w: %w", ErrBadPassword, ErrNoUser)
	case !ok || !known:
		return User{}, fmt.Errorf("check password of user %q: %w", name, ErrBadPassword)
	case u.Disabled:
		return User{}, fmt.Errorf("check password of user %q: %w", name, ErrDisabled)
	}
	return u, nil
}

// passwordOf returns the user named name and its password hash; "" when
// there is no such user or it has no password.
func (s *Store) passwordOf(ctx context.Context, name string) (User, string, error) {
	var phc string
	u, err := s.userRow(ctx, userSelect+`, u.password FROM users u WHERE u.name = ?`, name, &phc)
	return u, phc, err
}
