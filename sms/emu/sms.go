package emu

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// startSubmit handles AT+CMGS=<n>: it sends the "> " prompt (no line
// ending, as real modems) and switches the input to PDU mode, or, for a
// NoPrompt fault, to discarding input until ESC.
func (m *modem) startSubmit(args []string, f Fault) error {
	m.mu.Lock()
	locked := m.locked
	m.mu.Unlock()
	if locked {
		return cmsErr(311)
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 7 || n > 164 {
		return cmsErr(304)
	}
	m.pending, m.pduLen = f, n
	if f.NoPrompt {
		m.mode = modeHung
		return nil
	}
	m.mode = modePDU
	m.write("\r\n> ")
	return nil
}

// submit handles the PDU that Ctrl-Z ended: it checks that the length
// matches AT+CMGS=<n> and that it is a SUBMIT (or COMMAND), waits for the
// latency, then logs it and answers +CMGS: <mr>, unless a fault or
// FailRate says otherwise; then the status report it asks for, if any.
func (m *modem) submit(ctx context.Context, pdu string) {
	f := m.pending
	m.pending = Fault{}
	if err := checkSubmit(pdu, m.pduLen); err != nil {
		m.respond(nil, m.finalFor(err), f.URC)
		return
	}
	if !m.wait(ctx, m.opts.Latency+f.Delay) {
		return
	}
	mr, err := m.accept(pdu, f)
	switch {
	case err != nil:
		m.respond(nil, m.finalFor(err), f.URC)
		return
	case f.NoResult: // logged, never answered; the network has it
	default:
		m.respond([]string{fmt.Sprintf("+CMGS: %d", mr)}, "OK", f.URC)
	}
	if r, ok := m.owedReport(pdu, mr); ok {
		m.sendReport(ctx, r)
	}
}

// accept decides the fate of a well-formed PDU: an injected +CMS ERROR,
// a random 500 (FailRate), or logged and given the next message
// reference.
func (m *modem) accept(pdu string, f Fault) (int, error) {
	switch {
	case f.CMSError != 0:
		return 0, cmsErr(f.CMSError)
	case m.opts.FailRate > 0 && m.rng.Float64() < m.opts.FailRate:
		return 0, cmsErr(500)
	}
	m.mu.Lock()
	mr := m.mr
	m.mr = (m.mr + 1) % 256
	m.mu.Unlock()
	if err := m.log.write(Record{Device: m.device(), MR: mr, PDU: strings.ToUpper(pdu)}); err != nil {
		return 0, cmsErr(500)
	}
	return mr, nil
}

// checkSubmit validates the PDU against the length given to AT+CMGS,
// which counts the TPDU without the SMSC field (+CMS ERROR: 304
// otherwise, as modems say for a bad PDU).
func checkSubmit(pdu string, n int) error {
	b, err := validPDU(pdu)
	if err != nil || len(b) != 1+int(b[0])+n {
		return cmsErr(304)
	}
	if mti := b[1+int(b[0])] & 3; mti != 1 && mti != 2 {
		return cmsErr(304)
	}
	return nil
}

// statNames are the text-mode names of <stat>, accepted in PDU mode too.
var statNames = map[string]int{"REC UNREAD": 0, "REC READ": 1, "STO UNSENT": 2, "STO SENT": 3, "ALL": 4}

func statArg(args []string) (int, error) {
	if len(args) > 0 {
		if n, ok := statNames[strings.ToUpper(args[0])]; ok {
			return n, nil
		}
	}
	n, err := intArg(args, 0, 0)
	if err != nil || n < 0 || n > 4 {
		return 0, cmsErr(304)
	}
	return n, nil
}

// cmgl lists the stored messages with <stat> (4: all) in PDU mode and
// marks the unread ones read.
func cmgl(m *modem, op string, args []string) ([]string, error) {
	if op == "=?" {
		return []string{"+CMGL: (0-4)"}, nil
	}
	stat, err := statArg(args)
	if err != nil {
		return nil, err
	}
	var lines []string
	for i := range m.slots {
		s := &m.slots[i]
		if !s.used || (stat != 4 && s.stat != stat) {
			continue
		}
		lines = append(lines, fmt.Sprintf("+CMGL: %d,%d,,%d", i+1, s.stat, tpduLen(s.pdu)), s.pdu)
		s.stat = 1
	}
	return lines, nil
}

// tpduLen is the <length> of +CMGL/+CMGR: octets after the SMSC field.
func tpduLen(pdu string) int {
	b, _ := validPDU(pdu)
	return len(b) - 1 - int(b[0])
}

// slotArg returns the slot for the 1-based index in args[0].
func (m *modem) slotArg(args []string) (*slot, error) {
	i, err := intArg(args, 0, 0)
	if err != nil || i < 1 || i > len(m.slots) {
		return nil, cmsErr(321)
	}
	return &m.slots[i-1], nil
}

func cmgr(m *modem, op string, args []string) ([]string, error) {
	if op != "=" {
		return nil, nil
	}
	s, err := m.slotArg(args)
	if err != nil {
		return nil, err
	}
	if !s.used {
		return nil, cmsErr(321)
	}
	lines := []string{fmt.Sprintf("+CMGR: %d,,%d", s.stat, tpduLen(s.pdu)), s.pdu}
	s.stat = 1
	return lines, nil
}

// cmgd deletes one message, or with <delflag> 1-4 all read ones (the
// emulator stores no sent or unsent messages, so 1-3 are alike) or all.
func cmgd(m *modem, op string, args []string) ([]string, error) {
	switch op {
	case "=?":
		var idx []string
		for i, s := range m.slots {
			if s.used {
				idx = append(idx, strconv.Itoa(i+1))
			}
		}
		return []string{fmt.Sprintf("+CMGD: (%s),(0-4)", strings.Join(idx, ","))}, nil
	case "=":
	default:
		return nil, nil
	}
	flag, err := intArg(args, 1, 0)
	if err != nil || flag < 0 || flag > 4 {
		return nil, cmsErr(304)
	}
	if flag == 0 {
		s, err := m.slotArg(args)
		if err != nil {
			return nil, err
		}
		*s = slot{}
		return nil, nil
	}
	for i, s := range m.slots {
		if flag == 4 || s.stat == 1 {
			m.slots[i] = slot{}
		}
	}
	return nil, nil
}
