package sms

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"calq/internal/config"
	"calq/sms/at"
)

// ModemSpec says how to reach one modem.
type ModemSpec struct {
	Name          string
	Device        string
	Baud          int
	PIN           string // from the config's pin_file or pin_env; never from argv
	RatePerMinute float64

	// PINs, when set, remembers the PINs a SIM refused: Dial never
	// enters one of them again, unless RetryPIN (calq sms modems
	// --retry-pin) allows one more try. Send, Daemon, ReceiveFrom and
	// Survey set it to their journal when nil.
	PINs     PINStore
	RetryPIN bool
}

// withPINs returns specs with PINs set to pins where it is nil.
func withPINs(specs []ModemSpec, pins PINStore) []ModemSpec {
	if pins == nil {
		return specs
	}
	out := make([]ModemSpec, len(specs))
	for i, s := range specs {
		if s.PINs == nil {
			s.PINs = pins
		}
		out[i] = s
	}
	return out
}

// Specs lists the modems: devices given on the command line (--device,
// named by their base name), else the config file's [[sms.modem]].
func Specs(cfg config.SMS, devices []string, getenv func(string) string) ([]ModemSpec, error) {
	if len(devices) > 0 {
		specs := make([]ModemSpec, len(devices))
		for i, d := range devices {
			specs[i] = ModemSpec{Name: filepath.Base(d), Device: d}
		}
		return specs, nil
	}
	if len(cfg.Modems) == 0 {
		return nil, errors.New("no modems: give --device, or [[sms.modem]] in the config file")
	}
	specs := make([]ModemSpec, len(cfg.Modems))
	for i, m := range cfg.Modems {
		s := ModemSpec{Name: m.Name, Device: m.Device, Baud: m.Baud, RatePerMinute: m.RatePerMinute}
		if s.Name == "" {
			s.Name = filepath.Base(m.Device)
		}
		switch {
		case m.PINFile != "":
			pin, err := config.ReadSecret(m.PINFile)
			if err != nil {
				return nil, fmt.Errorf("modem %s: pin_file: %w", s.Name, err)
			}
			s.PIN = pin
		case m.PINEnv != "":
			s.PIN = getenv(m.PINEnv)
		}
		specs[i] = s
	}
	return specs, nil
}

// Conn is an open, initialised modem held by this process.
type Conn struct {
	Spec   ModemSpec
	Modem  *at.Modem
	Info   at.Info
	unlock func()
}

// Dial takes the modem's advisory lock (waiting while another calq holds
// it, until ctx is done), opens its port and runs the AT session's init.
// A SIM that asks for its PIN gets s.PIN, unless it refused that PIN
// before (see ModemSpec.PINs: the error then wraps ErrPINRejected) or has
// one try left (at.ErrLastTry).
func Dial(ctx context.Context, s ModemSpec, o at.Options) (*Conn, error) {
	unlock, err := at.Lock(ctx, s.Device)
	if err != nil {
		return nil, fmt.Errorf("modem %s: lock %s: %w", s.Name, s.Device, err)
	}
	m, err := at.Open(ctx, s.Device, s.Baud, o)
	if err != nil {
		unlock()
		return nil, fmt.Errorf("modem %s: open %s: %w", s.Name, s.Device, err)
	}
	info, err := m.Init(ctx, s.unlocker())
	if err != nil {
		m.Close()
		unlock()
		return nil, fmt.Errorf("modem %s: init: %w", s.Name, err)
	}
	return &Conn{Spec: s, Modem: m, Info: info, unlock: unlock}, nil
}

// Close closes the port and releases the lock.
func (c *Conn) Close() error {
	err := c.Modem.Close()
	c.unlock()
	return err
}
