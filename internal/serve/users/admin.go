package users

import (
	"context"
	"database/sql"
	"errors"
)

// ErrLastAdmin is a change refused under KeepAdmin: it would leave the
// users without an enabled administrator.
var ErrLastAdmin = errors.New("user is the last enabled administrator")

// Guard is a condition that Remove, SetAdmin and SetDisabled check in
// the same transaction as their change, refusing the change when it
// would break it.
type Guard struct{ keepAdmin bool }

// KeepAdmin refuses, with ErrLastAdmin, a change that would take the
// last enabled administrator away (removed, no longer an administrator,
// or disabled) while other users remain. calq serve's pages pass it, so
// that someone can still manage the users there; calq users, run on the
// server itself, needs no administrator and passes none.
var KeepAdmin = Guard{keepAdmin: true}

// refuses says whether guards refuse that tx takes away the
// administrator's rights of the user named name. The caller changes
// nothing then, and returns ErrLastAdmin after the transaction (the
// journal wraps the errors of one).
func refuses(ctx context.Context, tx *sql.Tx, name string, guards []Guard) (bool, error) {
	keep := false
	for _, g := range guards {
		keep = keep || g.keepAdmin
	}
	if !keep {
		return false, nil
	}
	var target, others, users int
	err := tx.QueryRowContext(ctx, `SELECT
		coalesce(sum(name = ? AND admin != 0 AND disabled = 0), 0),
		coalesce(sum(name != ? AND admin != 0 AND disabled = 0), 0),
		count(*)
		FROM users`, name, name).Scan(&target, &others, &users)
	return target == 1 && others == 0 && users > 1, err
}
