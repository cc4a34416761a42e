package at

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Info describes a modem after Init, for `calq sms modems`.
type Info struct {
	Maker, Model, IMEI string
	SMSC               string // service centre from AT+CSCA?, "" if unknown
	Registered         bool   // home or roaming on CREG or CEREG
	RegStatus          string // "home", "roaming", "searching", "denied", "not registered", "unknown"
	CREG, CEREG        int    // raw <stat> values, -1 when the modem did not say
	Signal             int    // AT+CSQ <rssi>: 0-31, 99 unknown, -1 not asked
}

// probeAttempts is how many times Init sends AT before giving up.
const probeAttempts = 3

// Init runs the session set-up of a PDU-mode SMS modem: ESC (cancels a stale
// '>' prompt, where Ctrl-Z would submit half a PDU), AT (retried), ATE0,
// AT+CMEE=1, AT+CPIN? (and unlock if the SIM asks for its PIN: WithPIN, or
// an Unlocker that remembers refused PINs; nil fails with ErrPINRequired),
// AT+CMGF=0, AT+CSCA?,
// AT+CPMS, AT+CNMI=2,1,0,2,0 (or 2,1,0,1,0, see routeIndications), AT+CREG?, AT+CEREG?, AT+CSQ, AT+CGMI, AT+CGMM,
// AT+CGSN. Only a failing AT, ATE0, PIN or PDU mode fails Init; the rest is
// informational and modems differ in what they support.
func (m *Modem) Init(ctx context.Context, unlock Unlocker) (Info, error) {
	info := Info{CREG: -1, CEREG: -1, Signal: -1}
	if err := m.write("\x1b"); err != nil {
		return info, fmt.Errorf("at: ESC: %w", err)
	}
	if err := m.probe(ctx); err != nil {
		return info, err
	}
	if _, err := m.Command(ctx, "ATE0"); err != nil {
		return info, err
	}
	m.optional(ctx, "AT+CMEE=1")
	if err := m.unlockSIM(ctx, unlock); err != nil {
		return info, err
	}
	if _, err := m.Command(ctx, "AT+CMGF=0"); err != nil {
		return info, err
	}
	info.SMSC = quoted(field(m.optional(ctx, "AT+CSCA?"), "+CSCA", 0))
	s := strconv.Quote(m.opt.Storage)
	m.optional(ctx, "AT+CPMS="+s+","+s+","+s)
	m.routeIndications(ctx)
	info.CREG = atoi(field(m.optional(ctx, "AT+CREG?"), "+CREG", 1), -1)
	info.CEREG = atoi(field(m.optional(ctx, "AT+CEREG?"), "+CEREG", 1), -1)
	info.Registered, info.RegStatus = registration(info.CREG, info.CEREG)
	info.Signal = atoi(field(m.optional(ctx, "AT+CSQ"), "+CSQ", 0), -1)
	info.Maker = ident(m.optional(ctx, "AT+CGMI"), "+CGMI")
	info.Model = ident(m.optional(ctx, "AT+CGMM"), "+CGMM")
	info.IMEI = ident(m.optional(ctx, "AT+CGSN"), "+CGSN")
	return info, ctx.Err()
}

// routeIndications asks the modem to store what arrives and say where
// (+CMTI, and +CDSI for status reports: AT+CNMI=2,1,0,2,0). A modem that
// cannot store status reports is asked to hand them out with +CDS
// (<ds>=1) instead: its default (often <ds>=0) may drop them, and
// calq's daemon records a +CDS's PDU as it arrives. A modem that refuses
// both keeps its own setting.
func (m *Modem) routeIndications(ctx context.Context) {
	if _, err := m.Command(ctx, "AT+CNMI=2,1,0,2,0"); err != nil {
		m.logf("ignored: %v", err)
		m.optional(ctx, "AT+CNMI=2,1,0,1,0")
	}
}

// probe sends AT until the modem answers OK.
func (m *Modem) probe(ctx context.Context) error {
	var err error
	for range probeAttempts {
		if _, err = m.command(ctx, "AT", m.opt.ProbeTimeout); err == nil || ctx.Err() != nil || errors.Is(err, ErrClosed) {
			return err
		}
	}
	return fmt.Errorf("at: no answer after %d attempts: %w", probeAttempts, err)
}

// optional runs cmd and returns its lines, or nil if it failed (logged).
func (m *Modem) optional(ctx context.Context, cmd string) []string {
	lines, err := m.Command(ctx, cmd)
	if err != nil {
		m.logf("ignored: %v", err)
		return nil
	}
	return lines
}

// unlockSIM reads AT+CPIN? and, when the SIM asks for its PIN, has
// unlock answer it, then checks that the SIM is READY.
func (m *Modem) unlockSIM(ctx context.Context, unlock Unlocker) error {
	state, err := m.SIMState(ctx)
	if err != nil || state == "READY" {
		return err
	}
	if state != "SIM PIN" {
		return fmt.Errorf("at: AT+CPIN?: %w: %s", ErrSIMLocked, state)
	}
	if unlock == nil {
		return fmt.Errorf("at: AT+CPIN?: %w", ErrPINRequired)
	}
	if err := unlock(ctx, m); err != nil {
		return err
	}
	if state, err = m.SIMState(ctx); err == nil && state != "READY" {
		err = fmt.Errorf("at: AT+CPIN?: %w: %s after PIN", ErrSIMLocked, state)
	}
	return err
}

// field returns the i-th comma-separated field of the first line named
// prefix, trimmed, or "".
func field(lines []string, prefix string, i int) string {
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, prefix+":"); ok {
			f := strings.Split(rest, ",")
			if i < len(f) {
				return strings.TrimSpace(f[i])
			}
			return ""
		}
	}
	return ""
}

// ident returns a plain answer such as AT+CGMI's "huawei", with or without
// the "+CGMI: " some modems put before it.
func ident(lines []string, prefix string) string {
	for _, l := range lines {
		l = strings.TrimSpace(strings.TrimPrefix(l, prefix+":"))
		if l != "" {
			return quoted(l)
		}
	}
	return ""
}

func quoted(s string) string { return strings.Trim(s, `"`) }

func atoi(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

var regNames = map[int]string{
	0: "not registered", 1: "home", 2: "searching", 3: "denied", 4: "unknown", 5: "roaming",
	6: "home", 7: "roaming", 8: "emergency only", 9: "home", 10: "roaming",
}

// registration combines CREG and CEREG: LTE modules may say unregistered on
// CREG alone while EPS registration is fine.
func registration(creg, cereg int) (bool, string) {
	for _, s := range []int{creg, cereg} {
		if n := regNames[s]; n == "home" || n == "roaming" {
			return true, n
		}
	}
	for _, s := range []int{creg, cereg} {
		if n, ok := regNames[s]; ok {
			return false, n
		}
	}
	return false, "unknown"
}
