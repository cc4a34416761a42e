package at

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SendPDU submits one SMS-SUBMIT: AT+CMGS=<tpduLen> (octets without the SMSC
// field), the '>' prompt within PromptTimeout, then hexPDU and Ctrl-Z, then
// +CMGS: <mr> and OK within ResultTimeout. It returns the message reference.
//
// Errors before the Ctrl-Z was written mean nothing was submitted: a missing
// prompt (ESC is written to cancel it) gives a transient *TimeoutError, a
// refusal gives *CMSError. Once the Ctrl-Z is written, a timeout, a cancelled
// ctx or a vanished modem gives an error wrapping ErrUnknownOutcome: the
// message may have gone; do not resend it blindly. If the modem says OK
// without a +CMGS line, mr is -1.
func (m *Modem) SendPDU(ctx context.Context, hexPDU string, tpduLen int) (mr int, err error) {
	if err := checkPDU(hexPDU, tpduLen); err != nil {
		return 0, err
	}
	cmd := "AT+CMGS=" + strconv.Itoa(tpduLen)
	defer func() {
		if err != nil {
			err = fmt.Errorf("at: %s: %w", cmd, err)
		}
	}()
	release, err := m.acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	r, err := m.start(cmd, true)
	if err != nil {
		return 0, err
	}
	if err := m.awaitPrompt(ctx, r, cmd); err != nil {
		return 0, err
	}
	return m.submit(ctx, r, strings.ToUpper(hexPDU))
}

// awaitPrompt writes the command and waits for '>'. On timeout or
// cancellation it writes ESC so the modem leaves the prompt without sending.
func (m *Modem) awaitPrompt(ctx context.Context, r *request, cmd string) error {
	timer := m.opt.After(m.opt.PromptTimeout)
	if err := m.write(cmd + "\r"); err != nil {
		m.abandon(r)
		return err
	}
	var err error
	select {
	case <-r.prompt:
		return nil
	case rep := <-r.done:
		// A final result where the prompt should be: a refusal, or the late
		// answer to an earlier command (then the real prompt may follow).
		// Nothing was submitted; ESC leaves any prompt that comes.
		if werr := m.write("\x1b"); werr != nil {
			m.logf("ESC after %v: %v", rep.err, werr)
		}
		return &NoPromptError{Result: rep.err}
	case <-timer:
		err = &TimeoutError{Waiting: "prompt", After: m.opt.PromptTimeout}
	case <-ctx.Done():
		err = ctx.Err()
	}
	m.abandon(r)
	if werr := m.write("\x1b"); werr != nil {
		m.logf("ESC after %v: %v", err, werr)
	}
	return err
}

// submit writes the PDU and Ctrl-Z and waits for +CMGS.
func (m *Modem) submit(ctx context.Context, r *request, hexPDU string) (int, error) {
	m.mu.Lock()
	r.echoes = append(r.echoes, hexPDU)
	m.mu.Unlock()
	timer := m.opt.After(m.opt.ResultTimeout)
	m.logf("> %s^Z", hexPDU)
	m.wmu.Lock()
	n, err := m.rw.Write([]byte(hexPDU + "\x1a"))
	m.wmu.Unlock()
	if err != nil {
		m.abandon(r)
		err = fmt.Errorf("%w: write: %w", ErrClosed, err)
		if n <= len(hexPDU) { // no Ctrl-Z, no submission
			return 0, err
		}
		return 0, fmt.Errorf("%w: %w", ErrUnknownOutcome, err)
	}
	select {
	case rep := <-r.done:
		if errors.Is(rep.err, ErrClosed) {
			return 0, fmt.Errorf("%w: %w", ErrUnknownOutcome, rep.err)
		}
		if rep.err != nil {
			return 0, rep.err
		}
		return atoi(field(rep.lines, "+CMGS", 0), -1), nil
	case <-timer:
		m.abandon(r)
		return 0, fmt.Errorf("%w: %w", ErrUnknownOutcome, &TimeoutError{Waiting: "result", After: m.opt.ResultTimeout})
	case <-ctx.Done():
		m.abandon(r)
		return 0, fmt.Errorf("%w: %w", ErrUnknownOutcome, ctx.Err())
	}
}

func checkPDU(hexPDU string, tpduLen int) error {
	b, err := hex.DecodeString(hexPDU)
	if err != nil {
		return fmt.Errorf("at: PDU is not hex: %w", err)
	}
	if tpduLen <= 0 || tpduLen > len(b) {
		return fmt.Errorf("at: TPDU length %d out of range for a %d-octet PDU", tpduLen, len(b))
	}
	return nil
}

// Stored is one message in the modem's storage, as AT+CMGL=4 lists it.
type Stored struct {
	Index  int    // for AT+CMGR / AT+CMGD
	Stat   int    // 0 received unread, 1 received read, 2 stored unsent, 3 stored sent
	Length int    // TPDU octets
	PDU    string // hex, with the SMSC field, as the modem gave it
}

// List returns every stored message (AT+CMGL=4), waiting up to ResultTimeout
// since full storage takes a while to list. Lines that are neither a +CMGL
// header nor the PDU after one (stray URCs) are skipped.
func (m *Modem) List(ctx context.Context) ([]Stored, error) {
	lines, err := m.command(ctx, "AT+CMGL=4", m.opt.ResultTimeout)
	if err != nil {
		return nil, err
	}
	var out []Stored
	for i := 0; i < len(lines); i++ {
		rest, ok := strings.CutPrefix(lines[i], "+CMGL:")
		if !ok {
			continue
		}
		f := strings.Split(rest, ",")
		if len(f) < 3 || i+1 >= len(lines) || !isHex(lines[i+1]) {
			return out, fmt.Errorf("at: AT+CMGL=4: malformed entry %q", lines[i])
		}
		s := Stored{
			Index:  atoi(strings.TrimSpace(f[0]), -1),
			Stat:   atoi(strings.TrimSpace(f[1]), -1),
			Length: atoi(strings.TrimSpace(f[len(f)-1]), -1),
			PDU:    lines[i+1],
		}
		if s.Index < 0 {
			return out, fmt.Errorf("at: AT+CMGL=4: bad index in %q", lines[i])
		}
		out = append(out, s)
		i++
	}
	return out, nil
}

// Delete removes the message at index (AT+CMGD=<index>).
func (m *Modem) Delete(ctx context.Context, index int) error {
	_, err := m.Command(ctx, "AT+CMGD="+strconv.Itoa(index))
	return err
}

func isHex(s string) bool {
	if s == "" || len(s)%2 != 0 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
