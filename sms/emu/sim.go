package emu

import (
	"fmt"
)

// SIM states, as AT+CPIN? says them.
const (
	SIMReady = "READY"
	SIMPIN   = "SIM PIN"
	SIMPUK   = "SIM PUK"
)

// The tries a SIM allows, as real ones do.
const (
	pinTries = 3
	pukTries = 10
)

// sim is an emulated SIM's PIN state, guarded by its modem's mu.
type sim struct {
	pin, puk         string
	pinLeft, pukLeft int
	wrongPINs        int // wrong PIN entries, in total
	queries          int // AT+CPIN? reads
}

func newSIM(o *Options) sim {
	puk := o.PUK
	if puk == "" {
		puk = "12345678"
	}
	return sim{pin: o.PIN, puk: puk, pinLeft: pinTries, pukLeft: pukTries}
}

// SIMStatus is what an emulated SIM has seen, for tests.
type SIMStatus struct {
	State     string // SIMReady, SIMPIN or SIMPUK
	PINLeft   int    // PIN tries left
	PUKLeft   int    // PUK tries left
	WrongPINs int    // wrong PIN entries since Start (PUK entries not counted)
	Queries   int    // AT+CPIN? reads since Start: one per client session at least
}

// SIMRecord is one line of Options.SIMLog: an AT+CPIN or AT+CPINR command.
type SIMRecord struct {
	Device  string `json:"device"`
	Command string `json:"command"`           // "AT+CPIN?", "AT+CPIN=" (the PIN left out), "AT+CPINR"
	Refused bool   `json:"refused,omitempty"` // an entry the SIM refused: a wrong PIN or PUK, or a PIN while blocked
	State   string `json:"state"`             // the SIM's state after the command
	PINLeft int    `json:"pin_left"`
	PUKLeft int    `json:"puk_left"`
}

// SIM returns the state and counts of the SIM in the modem at device.
func (e *Emulator) SIM(device string) (SIMStatus, error) {
	m, ok := e.byPath[device]
	if !ok {
		return SIMStatus{}, fmt.Errorf("emu: sim of %s: %w", device, ErrNoDevice)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sim
	return SIMStatus{State: m.simState(), PINLeft: s.pinLeft, PUKLeft: s.pukLeft, WrongPINs: s.wrongPINs, Queries: s.queries}, nil
}

// simState is AT+CPIN?'s answer; m.mu held.
func (m *modem) simState() string {
	switch {
	case !m.locked:
		return SIMReady
	case m.sim.pinLeft == 0:
		return SIMPUK
	}
	return SIMPIN
}

// logSIM appends a SIMRecord to Options.SIMLog; m.mu held.
func (m *modem) logSIM(command string, refused bool) {
	m.simLog.write(SIMRecord{Device: m.device(), Command: command, Refused: refused, State: m.simState(),
		PINLeft: m.sim.pinLeft, PUKLeft: m.sim.pukLeft})
}

func cpin(m *modem, op string, args []string) ([]string, error) {
	switch op {
	case "?":
		m.sim.queries++
		m.logSIM("AT+CPIN?", false)
		return []string{"+CPIN: " + m.simState()}, nil
	case "=":
		err := m.enter(args)
		m.logSIM("AT+CPIN=", err != nil)
		return nil, err
	}
	return nil, errUnknown
}

// enter runs AT+CPIN="<pin>" or, when blocked, AT+CPIN="<puk>","<new pin>".
func (m *modem) enter(args []string) error {
	s := &m.sim
	switch m.simState() {
	case SIMReady:
		return nil
	case SIMPIN:
		if args[0] != s.pin {
			s.wrongPINs++
			s.pinLeft--
			return cmeErr(16)
		}
		m.locked, s.pinLeft = false, pinTries
		return nil
	}
	switch {
	case len(args) < 2 || args[1] == "":
		return cmeErr(12) // SIM PUK required
	case s.pukLeft == 0:
		return cmeErr(13) // SIM failure: blocked for good
	case args[0] != s.puk:
		s.pukLeft--
		return cmeErr(16)
	}
	s.pin, s.pinLeft, s.pukLeft, m.locked = args[1], pinTries, pukTries, false
	return nil
}

// cpinr answers AT+CPINR[="SIM PIN"|"SIM PUK"] (27.007 §8.65).
func cpinr(m *modem, op string, args []string) ([]string, error) {
	pin := fmt.Sprintf("+CPINR: SIM PIN,%d,%d", m.sim.pinLeft, pinTries)
	puk := fmt.Sprintf("+CPINR: SIM PUK,%d,%d", m.sim.pukLeft, pukTries)
	m.logSIM("AT+CPINR", false)
	switch {
	case op == "=?":
		return nil, nil
	case op == "" || op == "=" && (args[0] == "" || args[0] == "SIM*"):
		return []string{pin, puk}, nil
	case op == "=" && args[0] == SIMPIN:
		return []string{pin}, nil
	case op == "=" && args[0] == SIMPUK:
		return []string{puk}, nil
	}
	return nil, cmeErr(4)
}

// ccid answers the SIM's serial number, also before the PIN is given.
func ccid(m *modem, op string, _ []string) ([]string, error) {
	if op == "=?" {
		return nil, nil
	}
	return []string{"+CCID: " + iccid(m.index)}, nil
}

// iccid is a 19-digit ICCID per modem (89: telecom, 49: Germany).
func iccid(i int) string { return fmt.Sprintf("8949020000%09d", i) }
