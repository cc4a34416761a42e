// Package emu emulates GSM modems on pseudo-terminals, so that everything
// that talks AT to a modem (calq's sms/at, gammu, smstools) can be tested
// without hardware.
//
// Start opens Options.Modems pseudo-terminals and serves each with a
// goroutine that speaks the AT subset of 3GPP 27.007/27.005 that SMS
// software uses: echo (on by default, ATE0/ATE1), AT+CMEE, AT+CPIN (a SIM
// that counts wrong PINs and blocks after 3, see Options.PIN), AT+CPINR,
// AT+CCID, AT+CMGF (PDU mode), AT+CSCA, AT+CPMS, AT+CNMI, AT+CREG/CEREG/CGREG,
// AT+CSQ, AT+CGMI/CGMM/CGMR/CGSN/CIMI, AT+CSCS, AT+CMGS with the "> "
// prompt, AT+CMGL, AT+CMGR and AT+CMGD. Every SMS-SUBMIT accepted is
// acknowledged with "+CMGS: <mr>" and appended to Options.Log as a JSON
// line {"device","mr","pdu"}; one that asks for a status report gets it
// after Options.ReportDelay, delivered or failed (ReportFailRate), by
// +CDS or stored and announced by +CDSI as AT+CNMI says. DELIVER PDUs
// planted with Options.Inbox or Plant are stored in the SIM memory and
// announced with +CMTI. Faults
// (delays, +CMS ERROR, missing prompts and results, unsolicited lines
// inside responses, a vanished device) are injected with Inject.
//
// An Emulator is safe for concurrent use. Each modem costs one goroutine
// and one pseudo-terminal; Close (or cancelling the context given to
// Start) stops them all and removes the devices.
package emu

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"
)

// Options configures an Emulator. The zero value gives one modem with no
// latency, no failures and no log.
type Options struct {
	Modems   int           // number of modems; 0 means 1
	Latency  time.Duration // time between the PDU's Ctrl-Z and +CMGS: <mr>
	FailRate float64       // probability that a SUBMIT gets +CMS ERROR: 500 instead
	Seed     uint64        // seeds FailRate's random numbers; 0 picks one
	// Log receives one JSON line {"device","mr","pdu"} per accepted PDU,
	// written before the modem answers +CMGS, in one Write call.
	Log io.Writer
	// Inbox holds hex DELIVER (or STATUS-REPORT) PDUs, SMSC field first as
	// read with AT+CMGL. They are dealt round-robin to the modems, so
	// each is received once, and announced with +CMTI after the first
	// command a client sends.
	Inbox    []string
	Capacity int    // SIM memory slots per modem; 0 means 50
	SMSC     string // AT+CSCA? answer; "" means +491710760000
	// PIN, when set, is asked for (AT+CPIN? says SIM PIN). The SIM
	// counts wrong entries and blocks after 3 (SIM PUK; a PIN entry then
	// gets +CME ERROR: 12) until AT+CPIN="<PUK>","<new PIN>"; it answers
	// AT+CPINR and AT+CCID. SIM reads its counts.
	PIN string
	PUK string // the SIM's PUK; "" means 12345678
	// SIMLog receives one JSON line (SIMRecord) per AT+CPIN and AT+CPINR
	// command, the PIN left out.
	SIMLog io.Writer

	// A SUBMIT that asks for a status report (TP-SRR) gets one
	// ReportDelay after its +CMGS (0: at once, right after it), as
	// AT+CNMI's <ds> says: 1 hands it out with +CDS, 2 stores it and
	// announces it with +CDSI, 0 stores it silently (see report.go).
	ReportDelay time.Duration
	// CDSOnly makes AT+CNMI refuse <ds>=2 (+CMS ERROR: 303), as modems
	// that cannot store status reports do: they hand them out with +CDS.
	CDSOnly bool
	// ReportFailRate is the probability that a report says the message
	// failed (TP-ST ReportFailed) rather than delivered (0). Seed seeds
	// it too.
	ReportFailRate float64
	// ReportLog receives one JSON line (ReportRecord) per status report,
	// when it goes out.
	ReportLog io.Writer
	// Now is the clock of the reports' time stamps; time.Now when nil.
	Now func() time.Time
	// After replaces time.After for ReportDelay, for tests.
	After func(time.Duration) <-chan time.Time
}

// Fault is a misbehaviour injected into one modem with Inject. It applies
// to the next command whose text starts with Command, once.
type Fault struct {
	// Command selects the command the fault applies to, a prefix such as
	// "AT+CMGS" or "AT+CSQ" (case-insensitive). Empty means AT+CMGS when
	// CMSError, NoPrompt or NoResult is set, else the next command.
	Command  string
	Delay    time.Duration // added before the final result code
	CMSError int           // answer +CMS ERROR: <n> after the PDU (not logged)
	NoPrompt bool          // never send "> "; input is discarded until ESC
	// NoResult accepts and logs the PDU but never answers: the message
	// went out, the client cannot know it.
	NoResult bool
	URC      string // an unsolicited line inserted before the final result code
	Vanish   bool   // close the device at once; the other fields are ignored
}

// ErrNoDevice is returned for a device path the emulator does not serve.
var ErrNoDevice = errors.New("no such emulated device")

// Emulator is a set of running virtual modems.
type Emulator struct {
	modems []*modem
	byPath map[string]*modem
	cancel context.CancelFunc
	stop   func() bool // detaches the AfterFunc on the caller's ctx
	wg     sync.WaitGroup
	once   sync.Once
	err    error
}

// Start opens the pseudo-terminals and starts serving them. Cancelling
// ctx has the effect of Close.
func Start(ctx context.Context, o Options) (*Emulator, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	log, simLog, repLog := &logWriter{w: o.Log}, &logWriter{w: o.SIMLog}, &logWriter{w: o.ReportLog}
	seed := o.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	e := &Emulator{byPath: map[string]*modem{}}
	for i := range o.Modems {
		p, err := openPTY()
		if err != nil {
			e.closeAll()
			return nil, fmt.Errorf("emu: modem %d: %w", i, err)
		}
		m := newModem(i, p, &o, log, simLog, rand.New(rand.NewPCG(seed, uint64(i))))
		m.repLog, m.bg = repLog, &e.wg
		e.modems = append(e.modems, m)
		e.byPath[p.path] = m
	}
	for i, pdu := range o.Inbox {
		m := e.modems[i%len(e.modems)]
		if _, err := m.store(pdu, true); err != nil {
			e.closeAll()
			return nil, fmt.Errorf("emu: inbox PDU %d: %w", i+1, err)
		}
	}
	sctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	for _, m := range e.modems {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			m.serve(sctx)
		}()
	}
	e.stop = context.AfterFunc(ctx, func() { e.shutdown() }) // not Close: e.stop may not be set yet
	return e, nil
}

func (o *Options) normalize() error {
	switch {
	case o.Modems < 0:
		return fmt.Errorf("emu: %d modems", o.Modems)
	case !(o.FailRate >= 0 && o.FailRate <= 1): // NaN too
		return fmt.Errorf("emu: fail rate %v is not between 0 and 1", o.FailRate)
	case !(o.ReportFailRate >= 0 && o.ReportFailRate <= 1):
		return fmt.Errorf("emu: report fail rate %v is not between 0 and 1", o.ReportFailRate)
	case o.ReportDelay < 0:
		return fmt.Errorf("emu: negative report delay %v", o.ReportDelay)
	case o.Latency < 0:
		return fmt.Errorf("emu: negative latency %v", o.Latency)
	case o.Capacity < 0 || o.Capacity > 255:
		return fmt.Errorf("emu: capacity %d is not between 1 and 255", o.Capacity)
	}
	if o.Modems == 0 {
		o.Modems = 1
	}
	if o.Capacity == 0 {
		o.Capacity = 50
	}
	if o.SMSC == "" {
		o.SMSC = "+491710760000"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	if n := (len(o.Inbox) + o.Modems - 1) / o.Modems; n > o.Capacity {
		return fmt.Errorf("emu: %d inbox PDUs need %d slots per modem, capacity is %d", len(o.Inbox), n, o.Capacity)
	}
	return nil
}

// Devices returns the modems' device paths (/dev/pts/N), in order. A
// vanished modem keeps its place in the list.
func (e *Emulator) Devices() []string {
	paths := make([]string, len(e.modems))
	for i, m := range e.modems {
		paths[i] = m.pty.path
	}
	return paths
}

// Inject queues f for the modem at device.
func (e *Emulator) Inject(device string, f Fault) error {
	m, ok := e.byPath[device]
	if !ok {
		return fmt.Errorf("emu: inject %s: %w", device, ErrNoDevice)
	}
	m.inject(f)
	return nil
}

// Plant stores a DELIVER PDU (hex, SMSC field first) in the modem's SIM
// memory and raises +CMTI: "SM",<index>. It returns the index.
func (e *Emulator) Plant(device, pdu string) (int, error) {
	m, ok := e.byPath[device]
	if !ok {
		return 0, fmt.Errorf("emu: plant on %s: %w", device, ErrNoDevice)
	}
	i, err := m.store(pdu, false)
	if err != nil {
		return 0, fmt.Errorf("emu: plant on %s: %w", device, err)
	}
	return i, nil
}

// Close stops every modem, closes the pseudo-terminals (clients read EOF
// or EIO) and waits for the goroutines. It is idempotent.
func (e *Emulator) Close() error {
	e.stop()
	return e.shutdown()
}

func (e *Emulator) shutdown() error {
	e.once.Do(func() {
		e.cancel()
		e.err = e.closeAll()
		e.wg.Wait()
	})
	return e.err
}

func (e *Emulator) closeAll() error {
	var errs []error
	for _, m := range e.modems {
		errs = append(errs, m.vanish())
	}
	return errors.Join(errs...)
}

// validPDU checks that s is hex with a plausible SMSC length field.
func validPDU(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("pdu %q: %w", s, err)
	}
	if len(b) < 2 || int(b[0])+2 > len(b) {
		return nil, fmt.Errorf("pdu %q: too short", s)
	}
	return b, nil
}
