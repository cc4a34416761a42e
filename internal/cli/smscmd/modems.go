package smscmd

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/sched/journal"
	"calq/sms"
	"calq/sms/at"
	"calq/sms/store"
)

func modemsCommand() *cli.Command {
	return &cli.Command{
		Name:  "modems",
		Usage: "open each modem and show its maker, model, IMEI, registration, signal and SMSC",
		Description: "Modems come from --device (repeatable) or [[sms.modem]] in the config file.\n\n" +
			"A SIM that refuses its PIN (pin_file or pin_env) is recorded in the journal\n" +
			"(--db) by its ICCID, else by its device, with a salted slow hash of the PIN,\n" +
			"never the PIN itself, and its modem shows as 'pin rejected': calq sms send,\n" +
			"the daemon and this command do not enter that PIN into that SIM again, so a\n" +
			"wrong PIN costs the SIM one try, not three (which would need its PUK). A\n" +
			"changed PIN is tried once; --retry-pin NAME enters the same PIN once more.\n" +
			"Neither ever spends a SIM's last try: enter that PIN by hand.\n\n" +
			"A modem a running calq sms daemon holds is not opened (that would wait for\n" +
			"the daemon): it is shown as the daemon recorded it when it started, with the\n" +
			"daemon's pid and its circuit breaker, since when: closed (the modem takes\n" +
			"messages), open (taken out after 5 failures in a row, for a minute), down\n" +
			"(it vanished: dialled again) or failing (failures in a row, but kept in: no\n" +
			"other modem sends). Without --device or [[sms.modem]], the daemon's modems\n" +
			"are shown.\n" +
			"SIGNAL is in dBm with bars (AT+CSQ's rssi: -113 + 2·rssi dBm).\n\n" +
			`--json prints a line per modem, {"message_type":"sms_modem","name","device",` + "\n" +
			`"state","maker","model","imei","registered","registration","signal",` + "\n" +
			`"signal_dbm","signal_bars","smsc","error","held_by_daemon":{"pid","host",` + "\n" +
			`"updated"},"breaker","breaker_since"}, state being "ready", "pin rejected" or` + "\n" +
			`"error"; unknown signal is null; breaker only for a daemon's modem.` + "\n" +
			"Exit status 1 when a modem could not be opened.",
		Flags: append(ModemFlags(),
			&cli.StringFlag{Name: "retry-pin", Usage: "enter the PIN into modem `NAME`'s SIM once more, even one it refused"},
			base.JSONFlag(),
			base.DBFlag()),
		Action: smsModemsAction,
	}
}

func smsModemsAction(c *cli.Context) error {
	if c.Args().Present() {
		return base.Usagef(c, "unexpected argument %q", c.Args().First())
	}
	if sharedSMS(c) {
		return smsModemHolds(c)
	}
	specs, o, err := ModemSpecs(c)
	if err != nil {
		return err
	}
	jn, err := base.OpenJournal(c)
	if err != nil {
		return err
	}
	defer jn.Close()
	rows, err := surveyModems(c, jn, specs, o)
	if err != nil {
		return err
	}
	if err := renderModems(c, rows); err != nil {
		return err
	}
	var errs []error
	for _, r := range rows {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errors.Join(errs...)
}

// surveyModems surveys the modems of specs, the daemons' without specs,
// and returns them in that order. A modem a live daemon holds is shown as
// the daemon last saw it: opening it would wait for its lock as long as
// the daemon runs.
func surveyModems(c *cli.Context, jn *journal.Journal, specs []sms.ModemSpec, o at.Options) ([]modemRow, error) {
	held, err := sms.DaemonModems(c.Context, jn)
	if err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		for _, m := range held {
			specs = append(specs, sms.ModemSpec{Name: m.Name, Device: m.Device})
		}
	}
	if len(specs) == 0 {
		return nil, errNoModems(c)
	}
	var free []sms.ModemSpec
	for _, s := range specs {
		if !slices.ContainsFunc(held, func(m sms.DaemonModem) bool { return m.Device == s.Device }) {
			free = append(free, s)
		}
	}
	st, err := store.Open(c.Context, jn)
	if err != nil {
		return nil, err
	}
	surveyed, err := sms.Survey(c.Context, free, sms.SurveyOptions{AT: o, PINs: st, RetryPIN: c.String("retry-pin")})
	if err != nil {
		return nil, base.Usagef(c, "%w", err)
	}
	return modemRows(specs, held, surveyed), nil
}

// modemRows is a row for each of specs: as held, by its daemon, else as
// surveyed.
func modemRows(specs []sms.ModemSpec, held []sms.DaemonModem, surveyed []sms.ModemStatus) []modemRow {
	var rows []modemRow
	for _, s := range specs {
		if i := slices.IndexFunc(held, func(m sms.DaemonModem) bool { return m.Device == s.Device }); i >= 0 {
			rows = append(rows, modemRow{held[i].ModemStatus, &held[i]})
			continue
		}
		i := slices.IndexFunc(surveyed, func(m sms.ModemStatus) bool { return m.Device == s.Device })
		rows = append(rows, modemRow{surveyed[i], nil})
	}
	return rows
}

// modemRow is a modem as calq sms modems shows it: surveyed now, or as the
// daemon holding it last saw it.
type modemRow struct {
	sms.ModemStatus
	daemon *sms.DaemonModem
}

// modemJSON is --json's line for a modem.
type modemJSON struct {
	sms.ModemStatus
	Signal     *int    `json:"signal"`      // AT+CSQ's rssi 0-31, null when unknown
	SignalDBm  *int    `json:"signal_dbm"`  // -113 + 2·rssi
	SignalBars *int    `json:"signal_bars"` // 0-5
	HeldBy     *heldBy `json:"held_by_daemon,omitempty"`
}

type heldBy struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Updated time.Time `json:"updated,omitzero"`
}

// csqSignal turns AT+CSQ's rssi (0-31, 99 unknown) into dBm and bars, as
// phones show it: 0 bars at -113 dBm or below, 5 from -73 dBm.
func csqSignal(rssi int) (dbm, bars int, ok bool) {
	if rssi < 0 || rssi > 31 {
		return 0, 0, false
	}
	dbm = -113 + 2*rssi
	switch {
	case rssi >= 20:
		bars = 5
	case rssi >= 15:
		bars = 4
	case rssi >= 10:
		bars = 3
	case rssi >= 5:
		bars = 2
	case rssi >= 2:
		bars = 1
	}
	return dbm, bars, true
}

func signalText(rssi int) string {
	dbm, bars, ok := csqSignal(rssi)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%d dBm %s", dbm, strings.Repeat("▮", bars)+strings.Repeat("▯", 5-bars))
}

func renderModems(c *cli.Context, rows []modemRow) error {
	return writeModems(c.App.Writer, rows, c.Bool("json"))
}

// writeModems writes rows as a table, or as JSON lines when asJSON.
func writeModems(w io.Writer, rows []modemRow, asJSON bool) error {
	if asJSON {
		for _, r := range rows {
			j := modemJSON{ModemStatus: r.ModemStatus}
			if dbm, bars, ok := csqSignal(r.Signal); ok {
				rssi := r.Signal
				j.Signal, j.SignalDBm, j.SignalBars = &rssi, &dbm, &bars
			}
			if r.daemon != nil {
				j.HeldBy = &heldBy{PID: r.daemon.PID, Host: r.daemon.Host, Updated: r.daemon.Updated}
			}
			if err := base.WriteJSONLine(w, "sms_modem", j); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDEVICE\tSTATE\tMAKER\tMODEL\tIMEI\tREGISTRATION\tSIGNAL\tSMSC")
	for _, r := range rows {
		state := r.State
		if r.daemon != nil {
			state += fmt.Sprintf(" (calq sms daemon, pid %d%s)", r.daemon.PID, breakerText(r.ModemStatus))
		}
		if r.Err != nil || r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", base.SafeText(r.Name), base.SafeText(r.Device), state, base.SafeText(cmp.Or(r.Error, fmt.Sprint(r.Err))))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", base.SafeText(r.Name), base.SafeText(r.Device), state, base.OrDash(base.SafeText(r.Maker)),
			base.OrDash(base.SafeText(r.Model)), base.OrDash(base.SafeText(r.IMEI)), base.OrDash(base.SafeText(r.Registration)), signalText(r.Signal), base.OrDash(base.SafeText(r.SMSC)))
	}
	return tw.Flush()
}

// breakerText is ", breaker open since 2026-11-29 09:30:00" for a modem
// whose daemon recorded its circuit breaker, else "".
func breakerText(m sms.ModemStatus) string {
	if m.Breaker == "" {
		return ""
	}
	s := ", breaker " + base.SafeText(m.Breaker)
	if !m.BreakerSince.IsZero() {
		s += " since " + m.BreakerSince.Local().Format(time.DateTime)
	}
	return s
}

// smsModemHolds lists the modems the daemons hold on a shared outbox
// (PostgreSQL), by host: each daemon surveys its own.
func smsModemHolds(c *cli.Context) error {
	if len(c.StringSlice("device")) > 0 {
		return base.Usagef(c, "--device: with a PostgreSQL --db this lists the modems the daemons hold; survey a modem on its host")
	}
	ss, err := openSMS(c)
	if err != nil {
		return err
	}
	defer ss.Close()
	hs, err := ss.Store.ModemsHeld(c.Context)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return base.WriteJSONLines(c.App.Writer, "sms_modem_hold", hs)
	}
	if len(hs) == 0 {
		fmt.Fprintln(c.App.ErrWriter, "calq: no calq sms daemon holds a modem on this database")
		return nil
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tDEVICE\tNAME\tDAEMON\tHELD UNTIL")
	for _, h := range hs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", base.SafeText(h.Host), base.SafeText(h.Device), base.SafeText(h.Name), base.SafeText(h.Owner), h.Until.Local().Format(time.DateTime))
	}
	return tw.Flush()
}
