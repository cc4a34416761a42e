package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"calq/internal/sqltime"
)

// pgMigrations are the tables on PostgreSQL, with what sharing the store
// between machines adds: the owner of a queued message (the daemon that
// claimed it, until its claim lapses) and the daemons' holds on their
// modems, keyed by host and device. Claims and holds run in the server's
// clock.
var pgMigrations = []string{`
CREATE TABLE sms_messages (
	id          bigserial PRIMARY KEY,
	created     text NOT NULL,
	recipient   text NOT NULL,
	text        text NOT NULL,
	options     text NOT NULL DEFAULT '{}',
	not_before  text,
	state       text NOT NULL DEFAULT 'queued',
	reason      text,
	modem       text,
	updated     text NOT NULL,
	owner       text,        -- the daemon that claimed it to send
	owner_until timestamptz  -- until then
);
CREATE INDEX sms_messages_queued ON sms_messages (id) WHERE state = 'queued';
CREATE TABLE sms_parts (
	message_id bigint NOT NULL REFERENCES sms_messages (id) ON DELETE CASCADE,
	seq        integer NOT NULL,
	total      integer NOT NULL,
	ref        integer NOT NULL,
	hex        text NOT NULL,
	tpdu_len   integer NOT NULL,
	state      text NOT NULL DEFAULT 'pending',
	mr         integer,
	modem      text,
	reason     text,
	updated    text NOT NULL,
	PRIMARY KEY (message_id, seq)
);
CREATE TABLE sms_inbox (
	id        bigserial PRIMARY KEY,
	kind      text NOT NULL,
	modem     text NOT NULL,
	sender    text NOT NULL,
	text      text NOT NULL DEFAULT '',
	scts      text,
	received  text NOT NULL,
	parts     integer NOT NULL DEFAULT 1,
	total     integer NOT NULL DEFAULT 1,
	missing   text NOT NULL DEFAULT '',
	mr        integer,
	st        integer,
	dt        text,
	ra_digits text,
	delivered text
);
CREATE INDEX sms_inbox_new ON sms_inbox (id) WHERE delivered IS NULL;
CREATE INDEX sms_inbox_mr ON sms_inbox (modem, mr) WHERE kind = 'report';
CREATE VIEW sms_reports AS
	SELECT id, modem, sender AS ra, ra_digits, mr, st, scts, dt, received, delivered
	FROM sms_inbox WHERE kind = 'report';
CREATE TABLE sms_inbox_pdus (
	id       bigserial PRIMARY KEY,
	modem    text NOT NULL,
	slot     integer NOT NULL,
	pdu      text NOT NULL,
	received text NOT NULL,
	deleted  text,
	state    text NOT NULL DEFAULT 'new',
	error    text,
	sender   text,
	ref      integer,
	total    integer,
	seq      integer,
	text     text,
	scts     text,
	inbox_id bigint REFERENCES sms_inbox (id)
);
CREATE INDEX sms_inbox_pdus_held ON sms_inbox_pdus (modem, slot) WHERE deleted IS NULL;
CREATE INDEX sms_inbox_pdus_open ON sms_inbox_pdus (state) WHERE state IN ('new', 'part');
CREATE TABLE sms_pin_rejections (
	sim         text PRIMARY KEY,
	modem       text NOT NULL,
	salt        bytea NOT NULL,
	fingerprint bytea NOT NULL,
	reason      text NOT NULL,
	rejected    text NOT NULL
);
CREATE TABLE sms_modem_holds (
	host   text NOT NULL,
	device text NOT NULL,
	name   text NOT NULL,
	owner  text NOT NULL,
	until  timestamptz NOT NULL,
	PRIMARY KEY (host, device)
);
`, `
-- The key of a message a machine spooled while the server was down
-- (Spool): forwarding it again after a crash inserts nothing.
ALTER TABLE sms_messages ADD COLUMN spool_key text UNIQUE;
`}

// ErrHeld is returned by HoldModems when another live daemon holds a
// modem.
var ErrHeld = errors.New("held by another daemon")

// ErrClaimLost is returned by SMSPartSending on a shared store when the
// message's claim is no longer the store's owner's: the daemon was
// paused or cut off past its lease, and another may be sending it.
var ErrClaimLost = errors.New("the message's claim lapsed: another daemon sends it")

// ErrNotShared is returned by the methods of a shared store on a store
// that is not (SQLite).
var ErrNotShared = errors.New("not a shared outbox (PostgreSQL)")

// ModemHold is a daemon's hold on a modem of a shared store.
type ModemHold struct {
	Host   string    `json:"host"`
	Device string    `json:"device"`
	Name   string    `json:"name"`
	Owner  string    `json:"owner"`
	Until  time.Time `json:"until"`
}

// Shared reports whether the store is shared between machines
// (PostgreSQL): daemons then claim messages and hold modems in it.
func (s *Store) Shared() bool { return s.pg != nil }

// SetOwner makes the store the daemon owner's: from then on a part is
// marked sending (and so written to a modem) only while owner's claim on
// its message holds. Call it before the store is used.
func (s *Store) SetOwner(owner string) { s.owner = owner }

// checkClaim fails with ErrClaimLost unless owner's claim on message id
// holds, in the server's clock.
func checkClaim(ctx context.Context, tx *sql.Tx, id int64, owner string) error {
	var ok bool
	err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sms_messages
		WHERE id = $1 AND owner = $2 AND owner_until > now())`, id, owner).Scan(&ok)
	if err == nil && !ok {
		err = ErrClaimLost
	}
	return err
}

// HoldModems records that owner holds holds (their Host, Device and Name)
// for lease. When another owner's live hold is on one of them it fails
// with ErrHeld, holding none.
func (s *Store) HoldModems(ctx context.Context, owner string, holds []ModemHold, lease time.Duration) error {
	if s.pg == nil {
		return ErrNotShared
	}
	return s.pg.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, h := range holds {
			var got string
			err := tx.QueryRowContext(ctx, `INSERT INTO sms_modem_holds (host, device, name, owner, until)
				VALUES ($1, $2, $3, $4, now() + $5 * interval '1 second')
				ON CONFLICT (host, device) DO UPDATE SET name = excluded.name, owner = excluded.owner, until = excluded.until
				WHERE sms_modem_holds.owner = excluded.owner OR sms_modem_holds.until < now()
				RETURNING owner`, h.Host, h.Device, h.Name, owner, lease.Seconds()).Scan(&got)
			if errors.Is(err, sql.ErrNoRows) {
				var other string
				if err := tx.QueryRowContext(ctx, `SELECT owner FROM sms_modem_holds WHERE host = $1 AND device = $2`,
					h.Host, h.Device).Scan(&other); err != nil {
					return err
				}
				return fmt.Errorf("%w: %s on %s (%s), by %s", ErrHeld, h.Device, h.Host, h.Name, other)
			}
			if err != nil {
				return fmt.Errorf("hold modem %s on %s: %w", h.Device, h.Host, err)
			}
		}
		return nil
	})
}

// RenewHolds extends owner's modem holds, and its claims on the messages
// ids (those it is sending), by lease. Its other claims lapse, for any
// daemon to take. It returns how many modem holds it still had: fewer
// than it took means another daemon took them over after they lapsed.
func (s *Store) RenewHolds(ctx context.Context, owner string, ids []int64, lease time.Duration) (int, error) {
	if s.pg == nil {
		return 0, ErrNotShared
	}
	n := 0
	err := s.pg.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sms_modem_holds SET until = now() + $2 * interval '1 second'
			WHERE owner = $1`, owner, lease.Seconds())
		if err != nil {
			return err
		}
		k, err := res.RowsAffected()
		n = int(k)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE sms_messages SET owner_until = now() + $2 * interval '1 second'
			WHERE owner = $1 AND state = 'queued' AND owner_until > now() AND id = ANY($3)`, owner, lease.Seconds(), ids)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("renew the holds of %s: %w", owner, err)
	}
	return n, nil
}

// ReleaseHolds drops owner's modem holds and gives its queued messages
// back to the other daemons.
func (s *Store) ReleaseHolds(ctx context.Context, owner string) error {
	if s.pg == nil {
		return ErrNotShared
	}
	err := s.pg.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sms_modem_holds WHERE owner = $1`, owner); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sms_messages SET owner = NULL, owner_until = NULL
			WHERE owner = $1 AND state = 'queued'`, owner)
		return err
	})
	if err != nil {
		return fmt.Errorf("release the holds of %s: %w", owner, err)
	}
	return nil
}

// ModemsHeld lists the live modem holds, by host and device.
func (s *Store) ModemsHeld(ctx context.Context) ([]ModemHold, error) {
	if s.pg == nil {
		return nil, ErrNotShared
	}
	rows, err := s.pg.Query(ctx, `SELECT host, device, name, owner, until FROM sms_modem_holds
		WHERE until > now() ORDER BY host, device`)
	if err != nil {
		return nil, fmt.Errorf("list modem holds: %w", err)
	}
	defer rows.Close()
	var hs []ModemHold
	for rows.Next() {
		var h ModemHold
		if err := rows.Scan(&h.Host, &h.Device, &h.Name, &h.Owner, &h.Until); err != nil {
			return nil, err
		}
		hs = append(hs, h)
	}
	return hs, rows.Err()
}

// ClaimDueSMS claims for owner, until lease, up to limit queued messages
// that are due and that no live daemon has claimed, oldest first, and
// returns them with their parts. Daemons claiming at once get different
// messages. A message some of whose parts went out through a modem not
// among modems is left to that modem's daemon: the rest must follow them
// there, with the same reference.
func (s *Store) ClaimDueSMS(ctx context.Context, owner string, modems []string, limit int, lease time.Duration) ([]SMSMessage, error) {
	if s.pg == nil {
		return nil, ErrNotShared
	}
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.pg.Query(ctx, `UPDATE sms_messages SET owner = $1, owner_until = now() + $3 * interval '1 second'
		WHERE id IN (SELECT id FROM sms_messages
			WHERE state = 'queued' AND (not_before IS NULL OR not_before <= $4)
				AND (owner IS NULL OR owner = $1 OR owner_until < now())
				AND NOT EXISTS (SELECT 1 FROM sms_parts p WHERE p.message_id = sms_messages.id
					AND p.state IN ('accepted', 'unknown') AND p.modem IS NOT NULL AND NOT p.modem = ANY($5))
			ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
		RETURNING id`, owner, limit, lease.Seconds(), sqltime.Text(s.now()), modems)
	if err != nil {
		return nil, fmt.Errorf("claim queued sms: %w", err)
	}
	var ids []string
	var args []any
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids, args = append(ids, "?"), append(args, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return nil, err
	}
	ms, err := s.querySMS(ctx, "WHERE id IN ("+strings.Join(ids, ", ")+")", args...)
	if err != nil {
		return nil, fmt.Errorf("read claimed sms: %w", err)
	}
	return ms, nil
}
