package at

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrPINRejected is wrapped by EnterPIN's error when the SIM refused the
// PIN (+CME ERROR: 16, incorrect password, or a plain ERROR, which cannot
// be told from it): a try was spent.
var ErrPINRejected = errors.New("SIM PIN rejected")

// ErrLastTry is wrapped by EnterPIN's error when the SIM has one PIN try
// left. calq never spends it: a wrong PIN then blocks the SIM until its
// PUK is entered.
var ErrLastTry = errors.New("one SIM PIN try left")

// Unlocker answers a SIM that asks for its PIN during Init ("SIM PIN" from
// AT+CPIN?). It may use m's SIM methods (ICCID, PINTriesLeft, EnterPIN).
type Unlocker func(ctx context.Context, m *Modem) error

// WithPIN is the Unlocker that enters pin (EnterPIN), or fails with
// ErrPINRequired when pin is "". It remembers nothing between calls:
// callers that dial again keep their own record of refused PINs.
func WithPIN(pin string) Unlocker {
	return func(ctx context.Context, m *Modem) error {
		if pin == "" {
			return fmt.Errorf("at: AT+CPIN?: %w", ErrPINRequired)
		}
		return m.EnterPIN(ctx, pin)
	}
}

// SIMState returns AT+CPIN?'s answer: "READY", "SIM PIN", "SIM PUK", ...
func (m *Modem) SIMState(ctx context.Context) (string, error) {
	lines, err := m.Command(ctx, "AT+CPIN?")
	if err != nil {
		return "", err
	}
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, "+CPIN:"); ok {
			return quoted(strings.TrimSpace(rest)), nil
		}
	}
	return "", fmt.Errorf("at: AT+CPIN?: no +CPIN line in %q", lines)
}

// ICCID returns the SIM's serial number from AT+CCID, AT+ICCID or Huawei's
// AT^ICCID? (the first that answers with one), or "" when none does. Most
// modems answer before the PIN is entered.
func (m *Modem) ICCID(ctx context.Context) string {
	for _, cmd := range []string{"AT+CCID", "AT+ICCID", "AT^ICCID?"} {
		if id := iccidIn(m.optional(ctx, cmd)); id != "" {
			return id
		}
		if ctx.Err() != nil {
			return ""
		}
	}
	return ""
}

// iccidIn finds an ICCID (18 to 22 digits, maybe padded with F) in a
// response, with or without a "+CCID: " name and quotes.
func iccidIn(lines []string) string {
	for _, l := range lines {
		if i := strings.IndexByte(l, ':'); i >= 0 {
			l = l[i+1:]
		}
		l = strings.ToUpper(quoted(strings.TrimSpace(l)))
		if len(l) >= 18 && len(l) <= 22 && strings.Trim(l, "0123456789F") == "" {
			return l
		}
	}
	return ""
}

// PINTriesLeft returns how many PIN tries the SIM has left, from
// AT+CPINR="SIM PIN" (27.007), Huawei's AT^CPIN? or Quectel's
// AT+QPINC="SC", the first that answers; -1 when none does.
func (m *Modem) PINTriesLeft(ctx context.Context) int {
	queries := []struct {
		cmd, name string
		field     int
	}{
		{`AT+CPINR="SIM PIN"`, "+CPINR", 1}, // +CPINR: SIM PIN,<retries>,<default>
		{"AT^CPIN?", "^CPIN", 3},            // ^CPIN: <code>,[<times>],<puk_times>,<pin_times>,...
		{`AT+QPINC="SC"`, "+QPINC", 1},      // +QPINC: "SC",<pin left>,<puk left>
	}
	for _, q := range queries {
		if n := atoi(field(m.optional(ctx, q.cmd), q.name, q.field), -1); n >= 0 {
			return n
		}
		if ctx.Err() != nil {
			break
		}
	}
	return -1
}

// EnterPIN sends AT+CPIN="pin" once, unless the SIM says it has one try
// (ErrLastTry) or none left (ErrSIMLocked). A refusal wraps ErrPINRejected:
// the try is spent, and entering the same PIN again would spend another.
func (m *Modem) EnterPIN(ctx context.Context, pin string) error {
	if strings.Trim(pin, "0123456789") != "" || len(pin) < 4 || len(pin) > 8 {
		return errors.New("at: PIN must be 4 to 8 digits")
	}
	switch left := m.PINTriesLeft(ctx); left {
	case 0:
		return fmt.Errorf("at: SIM PIN: %w: no tries left", ErrSIMLocked)
	case 1:
		return fmt.Errorf("at: SIM PIN: %w: calq never spends it, since a wrong PIN would block the SIM until its PUK is entered", ErrLastTry)
	}
	_, err := m.Command(ctx, `AT+CPIN="`+pin+`"`)
	var cme *CMEError
	if errors.As(err, &cme) && cme.Code == 16 || errors.Is(err, ErrCommand) {
		return fmt.Errorf("%w: %w", ErrPINRejected, err)
	}
	return err
}
