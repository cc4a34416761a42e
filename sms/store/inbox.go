package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"calq/internal/sqltime"
)

// smsInboxSchema holds calq sms recv's inbox. Every PDU a modem lists is
// first recorded raw in sms_inbox_pdus, before calq deletes it from the
// modem (AT+CMGD), so that a crash loses nothing. Filing a PDU turns it
// into an entry of sms_inbox (a message, whole or reassembled, or a
// status report) or leaves it as a part waiting for the others.
//
// sms_reports is the status reports of sms_inbox. The outbox joins a sent
// part to its report on the modem that sent it and its message reference,
// reports received after it was accepted, and the recipient's digits:
//
//	SELECT r.* FROM sms_reports r
//	WHERE r.modem = :modem AND r.mr = :mr AND r.received >= :accepted
//	ORDER BY r.received, r.id
//
// keeping the first whose recipient is SameNumber as the destination
// (ra_digits holds its digits alone, for a rougher join in SQL);
// MatchReport does just that. Message references wrap at 256, hence the
// time bound.
const smsInboxSchema = `
CREATE TABLE IF NOT EXISTS sms_inbox (
	id        INTEGER PRIMARY KEY,
	kind      TEXT NOT NULL,             -- 'message' or 'report'
	modem     TEXT NOT NULL,             -- the modem's name
	sender    TEXT NOT NULL,             -- message: originator (TP-OA); report: recipient (TP-RA)
	text      TEXT NOT NULL DEFAULT '',  -- message: the parts' texts in order
	scts      TEXT,                      -- service centre time stamp, RFC 3339 with the sender's zone
	received  TEXT NOT NULL,             -- when calq filed it (its last part)
	parts     INTEGER NOT NULL DEFAULT 1, -- parts present
	total     INTEGER NOT NULL DEFAULT 1, -- parts announced
	missing   TEXT NOT NULL DEFAULT '',  -- numbers of the missing parts: '2,5'
	mr        INTEGER,                   -- report: TP-MR of the message it answers
	st        INTEGER,                   -- report: TP-ST
	dt        TEXT,                      -- report: discharge time, RFC 3339
	ra_digits TEXT,                      -- report: the recipient's digits alone
	delivered TEXT                       -- when it was handed to the user; NULL while new
);
CREATE INDEX IF NOT EXISTS sms_inbox_new ON sms_inbox(id) WHERE delivered IS NULL;
CREATE INDEX IF NOT EXISTS sms_inbox_mr ON sms_inbox(modem, mr) WHERE kind = 'report';
CREATE VIEW IF NOT EXISTS sms_reports AS
	SELECT id, modem, sender AS ra, ra_digits, mr, st, scts, dt, received, delivered
	FROM sms_inbox WHERE kind = 'report';
CREATE TABLE IF NOT EXISTS sms_inbox_pdus (
	id       INTEGER PRIMARY KEY,
	modem    TEXT NOT NULL,
	slot     INTEGER NOT NULL,            -- its index in the modem's memory (AT+CMGL)
	pdu      TEXT NOT NULL,               -- hex as listed, SMSC field first
	received TEXT NOT NULL,               -- when calq first listed it
	deleted  TEXT,                        -- when it left the modem; NULL while it is there
	state    TEXT NOT NULL DEFAULT 'new', -- new, part, done, bad, skipped
	error    TEXT,                        -- why it is bad or skipped
	sender   TEXT,                        -- part: its key (modem, sender, ref, total) and place
	ref      INTEGER,
	total    INTEGER,
	seq      INTEGER,
	text     TEXT,
	scts     TEXT,
	inbox_id INTEGER REFERENCES sms_inbox(id)
);
CREATE INDEX IF NOT EXISTS sms_inbox_pdus_held ON sms_inbox_pdus(modem, slot) WHERE deleted IS NULL;
CREATE INDEX IF NOT EXISTS sms_inbox_pdus_open ON sms_inbox_pdus(state) WHERE state IN ('new', 'part');
`

// InboxSlot is a PDU as a modem listed it.
type InboxSlot struct {
	Slot int    // index in the modem's memory
	PDU  string // hex, SMSC field first
}

// InboxPDU is a raw PDU recorded in the journal.
type InboxPDU struct {
	ID       int64
	Modem    string
	Slot     int
	PDU      string
	Received time.Time
	OnModem  bool   // not yet deleted from the modem, as far as calq knows
	State    string // new, part, done, bad or skipped
}

// InboxPart is a part of a long message waiting for the others.
type InboxPart struct {
	PDUID           int64
	Modem, Sender   string
	Ref, Total, Seq int
	Text            string
	SCTS, Received  time.Time
}

// InboxEntry is a message or a status report of the inbox.
type InboxEntry struct {
	ID        int64
	Kind      string // "message" or "report"
	Modem     string
	Sender    string // message: originator; report: recipient
	Text      string
	SCTS      time.Time
	Received  time.Time
	Parts     int   // parts present
	Total     int   // parts announced
	Missing   []int // numbers of the missing parts, ascending
	MR, ST    int   // report: message reference, status
	DT        time.Time
	Delivered time.Time // zero while new
}

// Entry kinds.
const (
	KindMessage = "message"
	KindReport  = "report"
)

// RecordInboxPDUs records the PDUs that modem listed at time at, and
// returns their rows in the order of listed. A PDU already recorded in
// the same slot and not yet deleted is the same message listed again
// (calq stopped before AT+CMGD, or --keep left it): its row is returned,
// not a new one. Rows of modem still on it that it no longer lists
// (someone else deleted them, or calq stopped between AT+CMGD and
// MarkInboxDeleted) are marked deleted.
func (s *Store) RecordInboxPDUs(ctx context.Context, modem string, listed []InboxSlot, at time.Time) ([]InboxPDU, error) {
	var out []InboxPDU
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		out, err = recordInbox(ctx, tx, modem, listed, at)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("record PDUs of modem %s: %w", modem, err)
	}
	return out, nil
}

func recordInbox(ctx context.Context, tx *sql.Tx, modem string, listed []InboxSlot, now time.Time) ([]InboxPDU, error) {
	at := sqltime.Text(now)
	held, err := inboxPDUs(ctx, tx, `WHERE modem = ? AND deleted IS NULL`, modem)
	if err != nil {
		return nil, err
	}
	type key struct {
		slot int
		pdu  string
	}
	byKey := make(map[key]InboxPDU, len(held))
	for _, p := range held {
		byKey[key{p.Slot, p.PDU}] = p
	}
	out := make([]InboxPDU, 0, len(listed))
	for _, l := range listed {
		k := key{l.Slot, strings.ToUpper(l.PDU)}
		p, ok := byKey[k]
		if !ok {
			p = InboxPDU{Modem: modem, Slot: k.slot, PDU: k.pdu, Received: now.UTC().Truncate(time.Microsecond), OnModem: true, State: "new"}
			if err := tx.QueryRowContext(ctx, `INSERT INTO sms_inbox_pdus (modem, slot, pdu, received)
				VALUES (?, ?, ?, ?) RETURNING id`, modem, k.slot, k.pdu, at).Scan(&p.ID); err != nil {
				return nil, err
			}
		}
		delete(byKey, k)
		out = append(out, p)
	}
	for _, gone := range byKey {
		if _, err := tx.ExecContext(ctx, `UPDATE sms_inbox_pdus SET deleted = ? WHERE id = ?`, at, gone.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MarkInboxDeleted records that the PDU id left its modem at time at.
func (s *Store) MarkInboxDeleted(ctx context.Context, id int64, at time.Time) error {
	return s.inboxExec(ctx, "mark PDU deleted", `UPDATE sms_inbox_pdus SET deleted = ? WHERE id = ?`, sqltime.Text(at), id)
}

// UnfiledInboxPDUs returns the recorded PDUs not yet filed, oldest first.
func (s *Store) UnfiledInboxPDUs(ctx context.Context) ([]InboxPDU, error) {
	ps, err := inboxPDUs(ctx, readQuerier{s.db}, `WHERE state = 'new' ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list unfiled PDUs: %w", err)
	}
	return ps, nil
}

func inboxPDUs(ctx context.Context, db querier, where string, args ...any) ([]InboxPDU, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, modem, slot, pdu, received, deleted IS NULL, state
		FROM sms_inbox_pdus `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ps []InboxPDU
	for rows.Next() {
		var p InboxPDU
		var received sql.NullString
		if err := rows.Scan(&p.ID, &p.Modem, &p.Slot, &p.PDU, &received, &p.OnModem, &p.State); err != nil {
			return nil, err
		}
		if p.Received, err = sqltime.Parse(received); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, rows.Err()
}

// SetInboxPDUState files the PDU id as "bad" (undecodable) or "skipped"
// (not for the inbox, such as a SUBMIT), with the reason.
func (s *Store) SetInboxPDUState(ctx context.Context, id int64, state, reason string) error {
	if state != "bad" && state != "skipped" {
		return fmt.Errorf("file PDU %d: state %q is not bad or skipped", id, state)
	}
	return s.inboxExec(ctx, "file PDU", `UPDATE sms_inbox_pdus SET state = ?, error = ? WHERE id = ? AND state = 'new'`,
		state, textOrNull(reason), id)
}

// HoldInboxPart files the PDU p.PDUID as a part of a long message, to
// wait for the others (see InboxParts).
func (s *Store) HoldInboxPart(ctx context.Context, p InboxPart) error {
	return s.inboxExec(ctx, "hold part", `UPDATE sms_inbox_pdus SET state = 'part', sender = ?, ref = ?,
		total = ?, seq = ?, text = ?, scts = ? WHERE id = ? AND state = 'new'`,
		p.Sender, p.Ref, p.Total, p.Seq, p.Text, rfc3339OrNull(p.SCTS), p.PDUID)
}

func (s *Store) inboxExec(ctx context.Context, op, q string, args ...any) error {
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// InboxParts returns the parts waiting for the others, by modem, sender,
// reference, total and number.
func (s *Store) InboxParts(ctx context.Context) ([]InboxPart, error) {
	rows, err := s.db.Query(ctx, `SELECT id, modem, sender, ref, total, seq, text, scts, received
		FROM sms_inbox_pdus WHERE state = 'part' ORDER BY modem, sender, ref, total, seq, id`)
	if err != nil {
		return nil, fmt.Errorf("list parts: %w", err)
	}
	defer rows.Close()
	var ps []InboxPart
	for rows.Next() {
		var p InboxPart
		var scts, received sql.NullString
		if err := rows.Scan(&p.PDUID, &p.Modem, &p.Sender, &p.Ref, &p.Total, &p.Seq, &p.Text, &scts, &received); err != nil {
			return nil, fmt.Errorf("list parts: %w", err)
		}
		p.SCTS, err = parseRFC3339(scts)
		if err == nil {
			p.Received, err = sqltime.Parse(received)
		}
		if err != nil {
			return nil, fmt.Errorf("list parts: PDU %d: %w", p.PDUID, err)
		}
		ps = append(ps, p)
	}
	return ps, rows.Err()
}

// AddInboxEntry adds e (its ID and Delivered are ignored) and files the
// PDUs it was made of as done, in one transaction: a message, whole or
// reassembled, or a status report. It returns the entry's id, or 0 and
// adds nothing when another process (a daemon beside calq sms recv) filed
// any of those PDUs first.
func (s *Store) AddInboxEntry(ctx context.Context, e InboxEntry, pduIDs []int64) (int64, error) {
	if e.Kind != KindMessage && e.Kind != KindReport {
		return 0, fmt.Errorf("add inbox entry: kind %q is not message or report", e.Kind)
	}
	var id int64
	err := s.db.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		id, err = addInboxEntry(ctx, tx, e, pduIDs)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("add inbox %s from %s: %w", e.Kind, e.Sender, err)
	}
	return id, nil
}

func addInboxEntry(ctx context.Context, tx *sql.Tx, e InboxEntry, pduIDs []int64) (int64, error) {
	if len(pduIDs) > 0 {
		args := make([]any, len(pduIDs))
		for i, p := range pduIDs {
			args[i] = p
		}
		var open int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sms_inbox_pdus WHERE state IN ('new', 'part')
			AND id IN (?`+strings.Repeat(", ?", len(pduIDs)-1)+`)`, args...).Scan(&open); err != nil {
			return 0, err
		}
		if open != len(pduIDs) {
			return 0, nil // filed meanwhile by another process
		}
	}
	var mr, st, digits any
	if e.Kind == KindReport {
		mr, st, digits = e.MR, e.ST, Digits(e.Sender)
	}
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO sms_inbox (kind, modem, sender, text, scts, received,
		parts, total, missing, mr, st, dt, ra_digits) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		e.Kind, e.Modem, e.Sender, e.Text, rfc3339OrNull(e.SCTS), sqltime.Text(e.Received),
		max(e.Parts, 1), max(e.Total, 1), joinInts(e.Missing), mr, st, rfc3339OrNull(e.DT), digits).Scan(&id); err != nil {
		return 0, err
	}
	for _, p := range pduIDs {
		if _, err := tx.ExecContext(ctx, `UPDATE sms_inbox_pdus SET state = 'done', inbox_id = ?
			WHERE id = ?`, id, p); err != nil {
			return 0, err
		}
	}
	return id, nil
}

const inboxColumns = `id, kind, modem, sender, text, scts, received, parts, total, missing, mr, st, dt, delivered`

// NewInboxEntries returns the entries not yet delivered, oldest first.
func (s *Store) NewInboxEntries(ctx context.Context) ([]InboxEntry, error) {
	es, err := inboxEntries(ctx, readQuerier{s.db}, `WHERE delivered IS NULL ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list new inbox entries: %w", err)
	}
	return es, nil
}

// MarkInboxDelivered records that the entry id was handed to the user at
// time at; NewInboxEntries no longer returns it.
func (s *Store) MarkInboxDelivered(ctx context.Context, id int64, at time.Time) error {
	return s.inboxExec(ctx, "mark delivered", `UPDATE sms_inbox SET delivered = ? WHERE id = ?`, sqltime.Text(at), id)
}

// MatchReport returns the first status report that modem received at
// or after since for the message reference mr and a recipient that is
// SameNumber as ra ("" matches any recipient); ok is false when there is
// none yet. Message references wrap at 256: a report received after the
// modem accepted a later part with the same reference belongs to that
// part, not to this one.
func (s *Store) MatchReport(ctx context.Context, modem string, mr int, ra string, since time.Time) (e InboxEntry, ok bool, err error) {
	var next sql.NullString
	if err := s.db.QueryRow(ctx, `SELECT MIN(updated) FROM sms_parts WHERE modem = ? AND mr = ?
		AND state = 'accepted' AND updated > ?`, modem, mr, sqltime.Text(since)).Scan(&next); err != nil {
		return e, false, fmt.Errorf("match report %s/%d: %w", modem, mr, err)
	}
	until := "9999"
	if next.Valid {
		until = next.String
	}
	es, err := inboxEntries(ctx, readQuerier{s.db}, `WHERE kind = 'report' AND modem = ? AND mr = ? AND received >= ?
		AND received < ? ORDER BY received, id`, modem, mr, sqltime.Text(since), until)
	if err != nil {
		return e, false, fmt.Errorf("match report %s/%d: %w", modem, mr, err)
	}
	for _, e := range es {
		if ra == "" || SameNumber(ra, e.Sender) {
			return e, true, nil
		}
	}
	return e, false, nil
}

// SameNumber reports whether two phone numbers written differently are
// the same: their digits, leading zeros (trunk and international
// prefixes) dropped, are equal, or the shorter, of at least 6 digits, ends
// the longer ("+49 170 1234567", "0049170 1234567" and "01701234567").
func SameNumber(a, b string) bool {
	a, b = strings.TrimLeft(Digits(a), "0"), strings.TrimLeft(Digits(b), "0")
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || len(a) >= 6 && strings.HasSuffix(b, a)
}

func inboxEntries(ctx context.Context, db querier, where string, args ...any) ([]InboxEntry, error) {
	rows, err := db.QueryContext(ctx, `SELECT `+inboxColumns+` FROM sms_inbox `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var es []InboxEntry
	for rows.Next() {
		e, err := scanInboxEntry(rows)
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	return es, rows.Err()
}

func scanInboxEntry(rows *sql.Rows) (InboxEntry, error) {
	var e InboxEntry
	var scts, received, dt, delivered sql.NullString
	var mr, st sql.NullInt64
	var missing string
	err := rows.Scan(&e.ID, &e.Kind, &e.Modem, &e.Sender, &e.Text, &scts, &received, &e.Parts,
		&e.Total, &missing, &mr, &st, &dt, &delivered)
	if err != nil {
		return e, err
	}
	e.MR, e.ST = int(mr.Int64), int(st.Int64)
	var errs [5]error
	e.SCTS, errs[0] = parseRFC3339(scts)
	e.DT, errs[1] = parseRFC3339(dt)
	e.Received, errs[2] = sqltime.Parse(received)
	e.Delivered, errs[3] = sqltime.Parse(delivered)
	e.Missing, errs[4] = splitInts(missing)
	if err := errors.Join(errs[:]...); err != nil {
		return e, fmt.Errorf("inbox entry %d: %w", e.ID, err)
	}
	return e, nil
}

// Digits returns the decimal digits of a phone number, for comparing
// numbers written differently ("+49 171 1234" and "491711234").
func Digits(number string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, number)
}

func rfc3339OrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Format(time.RFC3339)
}

func parseRFC3339(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339, s.String)
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func splitInts(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("missing parts %q: %w", s, err)
		}
		ns = append(ns, n)
	}
	return ns, nil
}
