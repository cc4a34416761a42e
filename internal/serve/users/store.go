package users

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"calq/internal/sqltime"
	"calq/sched/journal"
)

// Add records a new user from u's Name, Admin and Profile, created now,
// enabled, without keys or password, and returns it. A name taken is ErrUserExists: adding
// never changes a user (SetAdmin and SetProfile do). See CheckName for
// the names it accepts.
func (s *Store) Add(ctx context.Context, u User) (User, error) {
	return s.add(ctx, u, "")
}

// AddWithPassword is Add with a password, which must pass
// ValidatePassword: it is hashed first, so that a refusal (ErrBusy when
// Hashes is full) leaves no user behind without its password.
func (s *Store) AddWithPassword(ctx context.Context, u User, password string) (User, error) {
	err := ValidatePassword(password)
	var phc string
	if err == nil {
		phc, err = s.hash(password)
	}
	if err != nil {
		return User{}, fmt.Errorf("add user %q: %w", u.Name, err)
	}
	return s.add(ctx, u, phc)
}

// add records u with the password hash phc ("" none).
func (s *Store) add(ctx context.Context, u User, phc string) (User, error) {
	if err := CheckName(u.Name); err != nil {
		return User{}, fmt.Errorf("add user: %w", err)
	}
	if err := checkProfile(u.Profile); err != nil {
		return User{}, fmt.Errorf("add user %q: %w", u.Name, err)
	}
	u.Keys, u.Password, u.Disabled = 0, phc != "", false
	u.Created = s.now().UTC().Truncate(time.Microsecond)
	n, err := s.exec(ctx, `INSERT INTO users (name, admin, profile, created, password) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (name) DO NOTHING`, u.Name, u.Admin, u.Profile, sqltime.Text(u.Created), phc)
	if err == nil && n == 0 {
		err = ErrUserExists
	}
	if err != nil {
		return User{}, fmt.Errorf("add user %q: %w", u.Name, err)
	}
	return u, nil
}

// Remove deletes the user named name, its keys and its sessions, after
// checking guards (KeepAdmin); ErrNoUser when there is none. Its jobs,
// address book and profiles are others' to keep: a user added again
// under the name finds them.
func (s *Store) Remove(ctx context.Context, name string, guards ...Guard) error {
	var n int64
	refused := false
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if refused, err = refuses(ctx, tx, name, guards); err != nil || refused {
			return err
		}
		for _, table := range []string{"user_keys", "user_sessions"} {
			if _, err := journal.Exec(ctx, tx, `DELETE FROM `+table+` WHERE user = ?`, name); err != nil {
				return err
			}
		}
		res, err := journal.Exec(ctx, tx, `DELETE FROM users WHERE name = ?`, name)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("remove user %q: %w", name, err)
	}
	if err = userError(refused, n); err != nil {
		return fmt.Errorf("remove user %q: %w", name, err)
	}
	return nil
}

// SetAdmin makes the user named name an admin or not; ErrNoUser when
// there is none. Taking the rights away checks guards (KeepAdmin).
func (s *Store) SetAdmin(ctx context.Context, name string, admin bool, guards ...Guard) error {
	if admin {
		guards = nil // granting takes nothing away
	}
	if err := s.changeUser(ctx, false, guards, `UPDATE users SET admin = ? WHERE name = ?`, admin, name); err != nil {
		return fmt.Errorf("set admin of user %q: %w", name, err)
	}
	return nil
}

// SetProfile sets the config profile of the user named name ("" none);
// ErrNoUser when there is none. Whether the config file defines the
// profile is the caller's business.
func (s *Store) SetProfile(ctx context.Context, name, profile string) error {
	err := checkProfile(profile)
	if err == nil {
		err = s.update(ctx, `UPDATE users SET profile = ? WHERE name = ?`, profile, name)
	}
	if err != nil {
		return fmt.Errorf("set profile of user %q: %w", name, err)
	}
	return nil
}

// update runs a statement that changes one user, ErrNoUser when it
// changes none.
func (s *Store) update(ctx context.Context, query string, args ...any) error {
	n, err := s.exec(ctx, query, args...)
	if err == nil && n == 0 {
		err = ErrNoUser
	}
	return err
}

// exec runs one statement in the journal's writer and returns the number
// of rows it changed.
func (s *Store) exec(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := journal.Exec(ctx, tx, query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, err // n is the writer's until Write returns nil
	}
	return n, nil
}

// userSelect selects the columns of a User for scanUser, from users
// aliased u; userColumns is the query of all users.
const (
	userSelect = `SELECT u.name, u.admin, u.profile, u.created,
	(SELECT count(*) FROM user_keys c WHERE c.user = u.name), u.password != '', u.disabled, u.sms`
	userColumns = userSelect + ` FROM users u`
)

// Get returns the user named name; ErrNoUser when there is none.
func (s *Store) Get(ctx context.Context, name string) (User, error) {
	u, err := s.get(ctx, name)
	if err != nil {
		return User{}, fmt.Errorf("get user %q: %w", name, err)
	}
	return u, nil
}

func (s *Store) get(ctx context.Context, name string) (User, error) {
	us, err := s.users(ctx, userColumns+` WHERE u.name = ?`, name)
	if err != nil {
		return User{}, err
	}
	if len(us) == 0 {
		return User{}, ErrNoUser
	}
	return us[0], nil
}

// List returns the users sorted by name.
func (s *Store) List(ctx context.Context) ([]User, error) {
	us, err := s.users(ctx, userColumns+` ORDER BY u.name`)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return us, nil
}

// Count returns the number of users: 0 means that calq serve has no one
// to authenticate.
func (s *Store) Count(ctx context.Context) (int, error) {
	n, err := s.count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count users: %w", err)
	}
	return n, nil
}

func (s *Store) count(ctx context.Context) (int, error) {
	rows, err := s.db.Query(ctx, `SELECT count(*) FROM users`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
	}
	return n, rows.Err()
}

func (s *Store) users(ctx context.Context, query string, args ...any) ([]User, error) {
	rows, err := s.db.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var us []User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		us = append(us, u)
	}
	return us, rows.Err()
}

// userRow runs query, of userSelect's columns and then extra's, with the
// one argument arg, and returns the user of its row (the zero User when
// there is none) after reading the extra columns into extra.
func (s *Store) userRow(ctx context.Context, query string, arg any, extra ...any) (User, error) {
	rows, err := s.db.Query(ctx, query, arg)
	if err != nil {
		return User{}, err
	}
	defer rows.Close()
	var u User
	for rows.Next() {
		if u, err = scanUser(rows, extra...); err != nil {
			return User{}, err
		}
	}
	return u, rows.Err()
}

// scanUser reads a row of userColumns, and into extra the columns after
// them.
func scanUser(rows *sql.Rows, extra ...any) (User, error) {
	var u User
	var created sql.NullString
	if err := rows.Scan(append([]any{&u.Name, &u.Admin, &u.Profile, &created, &u.Keys, &u.Password, &u.Disabled, &u.SMS}, extra...)...); err != nil {
		return User{}, err
	}
	var err error
	if u.Created, err = sqltime.Parse(created); err != nil {
		return User{}, fmt.Errorf("user %q: %w", u.Name, err)
	}
	return u, nil
}
