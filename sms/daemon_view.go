package sms

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"calq/sched"
	"calq/sched/journal"
)

// The daemon's view of its modems is kept in the journal, in a table of
// package sms's own, so that calq sms send, recv and modems find a daemon
// started with --device and show what it knows without opening a modem it
// holds (which would wait for the modem's lock as long as the daemon runs).
const daemonViewSchema = `
CREATE TABLE IF NOT EXISTS sms_daemon_modems (
	device  TEXT PRIMARY KEY,
	name    TEXT NOT NULL,
	status  TEXT NOT NULL, -- ModemStatus as JSON
	updated TEXT NOT NULL
);
`

// DaemonModem is a modem a live calq sms daemon holds, as it last saw it.
type DaemonModem struct {
	ModemStatus
	PID     int       `json:"daemon_pid"`
	Host    string    `json:"daemon_host"`
	Updated time.Time `json:"updated"`
}

// recordView records what the daemon learnt of each of its modems: the
// modems it dialled, from their Init, the others with dialErr.
func recordView(ctx context.Context, jn *journal.Journal, specs []ModemSpec, pool *Pool, dialErr error) error {
	start := time.Now().UTC()
	now := start.Format(time.RFC3339Nano)
	var rows [][3]string
	for _, s := range specs {
		st := ModemStatus{Name: s.Name, Device: s.Device, State: ModemError, Signal: -1, Error: "did not answer",
			Breaker: BreakerDown, BreakerSince: start}
		if dialErr != nil {
			st.Error = dialErr.Error()
		}
		for _, c := range pool.Conns() {
			if c.Spec.Device == s.Device {
				in := c.Info
				st = ModemStatus{Name: s.Name, Device: s.Device, State: ModemReady, Maker: in.Maker, Model: in.Model,
					IMEI: in.IMEI, Registered: in.Registered, Registration: in.RegStatus, Signal: in.Signal, SMSC: in.SMSC,
					Breaker: BreakerClosed, BreakerSince: start}
			}
		}
		b, err := json.Marshal(st)
		if err != nil {
			return err
		}
		rows = append(rows, [3]string{s.Device, s.Name, string(b)})
	}
	if err := jn.Migrate(ctx, "sms_daemon", []string{daemonViewSchema}); err != nil {
		return err
	}
	return jn.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, r := range rows {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO sms_daemon_modems (device, name, status, updated)
				VALUES (?, ?, ?, ?)`, r[0], r[1], r[2], now); err != nil {
				return err
			}
		}
		return nil
	})
}

// recordBreaker records the change of the breaker of the modem on device
// in the daemon's view.
func recordBreaker(ctx context.Context, jn *journal.Journal, device string, c breakerChange) error {
	return jn.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM sms_daemon_modems WHERE device = ?`, device).Scan(&status)
		if err != nil {
			return err
		}
		var st ModemStatus
		if err := json.Unmarshal([]byte(status), &st); err != nil {
			return err
		}
		st.Breaker, st.BreakerSince = c.state, c.since
		b, err := json.Marshal(st)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sms_daemon_modems SET status = ?, updated = ? WHERE device = ?`,
			string(b), time.Now().UTC().Format(time.RFC3339Nano), device)
		return err
	})
}

// DaemonModems returns the modems live calq sms daemons hold, with what
// each daemon recorded of them, in the order the daemons claimed them. It
// opens no modem.
func DaemonModems(ctx context.Context, jn *journal.Journal) ([]DaemonModem, error) {
	recs, err := jn.List(ctx, journal.Filter{Kind: daemonKind, State: sched.StateRunning})
	if err != nil {
		return nil, fmt.Errorf("find the daemon's modems: %w", err)
	}
	host, _ := os.Hostname()
	now := time.Now()
	var out []DaemonModem
	for _, r := range recs {
		if !r.LeaseUntil.After(now) || (r.OwnerHost == host && !journal.PIDAlive(r.OwnerPid)) {
			continue
		}
		device := string(r.Payload)
		m := DaemonModem{ModemStatus: ModemStatus{Name: r.Label, Device: device, State: ModemReady, Signal: -1},
			PID: r.OwnerPid, Host: r.OwnerHost}
		if err := readView(ctx, jn, device, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	slices.Reverse(out) // List is newest first
	return out, nil
}

// readView fills m with what the daemon recorded of its device, if any.
func readView(ctx context.Context, jn *journal.Journal, device string, m *DaemonModem) error {
	var status, updated string
	err := jn.QueryRow(ctx, `SELECT status, updated FROM sms_daemon_modems WHERE device = ?`, device).Scan(&status, &updated)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err != nil && isNoTable(err):
		return nil
	case err != nil:
		return fmt.Errorf("read the daemon's view of %s: %w", device, err)
	}
	var st ModemStatus
	if json.Unmarshal([]byte(status), &st) == nil {
		st.Name, st.Device = m.Name, device
		m.ModemStatus = st
	}
	m.Updated, _ = time.Parse(time.RFC3339Nano, updated)
	return nil
}

// isNoTable says the table is not there yet: no daemon recorded a view.
func isNoTable(err error) bool { return strings.Contains(err.Error(), "no such table") }

// SpecsOfDaemon returns the specs of the modems live daemons hold: what
// send and recv use when neither --device nor the config names a modem.
func SpecsOfDaemon(ctx context.Context, jn *journal.Journal) ([]ModemSpec, error) {
	ms, err := DaemonModems(ctx, jn)
	var specs []ModemSpec
	for _, m := range ms {
		specs = append(specs, ModemSpec{Name: m.Name, Device: m.Device})
	}
	return specs, err
}
