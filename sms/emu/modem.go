package emu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

const (
	ctrlZ = 0x1A
	esc   = 0x1B
	// Input beyond these is dropped, as a modem's buffer would: a line
	// longer than any command, a PDU longer than 164 octets and an SMSC.
	maxLine = 1024
	maxPDU  = 2 * (164 + 12)
)

// input modes of a modem
const (
	modeCommand = iota // reading a command line
	modePDU            // after "> ": reading hex until Ctrl-Z or ESC
	modeHung           // a prompt that never came: discarding until ESC
)

// slot is one SIM memory location.
type slot struct {
	used bool
	stat int // 0 REC UNREAD, 1 REC READ
	pdu  string
}

// modem is one emulated device. The serving goroutine owns the input
// state (mode, line, pdu, pending); mu guards what Inject and Plant touch
// from other goroutines, and wmu keeps writes whole.
type modem struct {
	index  int
	pty    *pty
	opts   *Options
	log    *logWriter
	simLog *logWriter
	rng    *rand.Rand // used by the serving goroutine only
	repLog *logWriter
	bg     *sync.WaitGroup // the emulator's: delayed reports run on it
	gone   chan struct{}
	once   sync.Once

	wmu sync.Mutex

	mu      sync.Mutex
	echo    bool
	cmee    int
	locked  bool // SIM PIN not yet given, or blocked (sim.puk)
	sim     sim
	csca    string
	cnmi    [5]int
	cscs    string
	creg    [3]int // CREG, CEREG, CGREG <n>
	mr      int
	slots   []slot
	waiting int // delayed reports not yet out
	faults  []Fault
	startup []int // +CMTI indexes announced after the first command

	mode    int
	line    []byte
	pdu     []byte
	pduLen  int
	pending Fault // the fault of the AT+CMGS in progress
}

func newModem(i int, p *pty, o *Options, log, simLog *logWriter, rng *rand.Rand) *modem {
	return &modem{sim: newSIM(o), simLog: simLog,
		index: i, pty: p, opts: o, log: log, rng: rng, gone: make(chan struct{}),
		echo: true, locked: o.PIN != "", csca: o.SMSC, cscs: "GSM",
		cnmi:  [5]int{2, 1, 0, 0, 0},
		slots: make([]slot, o.Capacity),
	}
}

// serve reads the client's bytes until the device is closed.
func (m *modem) serve(ctx context.Context) {
	buf := make([]byte, 1024)
	for {
		n, err := m.pty.master.Read(buf)
		if err != nil {
			return
		}
		m.feed(ctx, buf[:n])
	}
}

// feed runs the input state machine over one read's bytes. Echo goes out
// as the bytes arrive, like a real modem's, so it always precedes the
// response to the line it ends.
func (m *modem) feed(ctx context.Context, b []byte) {
	var echo []byte
	flush := func() {
		if len(echo) > 0 && m.echoOn() {
			m.write(string(echo))
		}
		echo = echo[:0]
	}
	for _, c := range b {
		switch m.mode {
		case modeCommand:
			switch c {
			case '\n', esc:
			case '\r':
				echo = append(echo, c)
				flush()
				line := string(m.line)
				m.line = m.line[:0]
				m.command(ctx, line)
			case 8, 127: // backspace
				if len(m.line) > 0 {
					m.line = m.line[:len(m.line)-1]
				}
				echo = append(echo, c)
			default:
				if len(m.line) < maxLine {
					m.line = append(m.line, c)
				}
				echo = append(echo, c)
			}
		case modePDU:
			switch c {
			case ctrlZ:
				flush()
				m.mode = modeCommand
				m.submit(ctx, string(m.pdu))
				m.pdu = m.pdu[:0]
			case esc:
				flush()
				m.mode = modeCommand
				m.pdu = m.pdu[:0]
				m.respond(nil, "OK", "")
			case '\r', '\n':
			default:
				if len(m.pdu) < maxPDU {
					m.pdu = append(m.pdu, c)
				}
				echo = append(echo, c)
			}
		case modeHung:
			if c == esc {
				m.mode = modeCommand
			}
		}
	}
	flush()
}

func (m *modem) echoOn() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.echo
}

// write sends s to the client whole; errors mean the device is gone and
// the next Read ends serve.
func (m *modem) write(s string) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.pty.master.WriteString(s)
}

// respond writes information lines, an unsolicited line if a fault asks
// for one, and the final result code, in one write.
func (m *modem) respond(lines []string, final, urc string) {
	var b strings.Builder
	if len(lines) > 0 {
		b.WriteString("\r\n" + strings.Join(lines, "\r\n") + "\r\n")
	}
	if urc != "" {
		b.WriteString("\r\n" + urc + "\r\n")
	}
	b.WriteString("\r\n" + final + "\r\n")
	m.write(b.String())
}

// wait sleeps d, or less if the emulator stops; it reports whether the
// full time passed.
func (m *modem) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-m.gone:
	}
	return false
}

func (m *modem) inject(f Fault) {
	if f.Vanish {
		m.vanish()
		return
	}
	if f.Command == "" && (f.CMSError != 0 || f.NoPrompt || f.NoResult) {
		f.Command = "AT+CMGS"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.faults = append(m.faults, f)
}

// takeFault removes and returns the first fault for the command line.
func (m *modem) takeFault(line string) Fault {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, f := range m.faults {
		if strings.HasPrefix(strings.ToUpper(line), strings.ToUpper(f.Command)) {
			m.faults = append(m.faults[:i], m.faults[i+1:]...)
			return f
		}
	}
	return Fault{}
}

// vanish closes the device, once.
func (m *modem) vanish() error {
	var err error
	m.once.Do(func() {
		close(m.gone)
		m.wmu.Lock()
		defer m.wmu.Unlock()
		err = m.pty.close()
	})
	return err
}

var errMemoryFull = errors.New("SIM memory full")

// store puts a PDU in the first free slot. At startup the +CMTI waits for
// the first command (nobody may be listening yet); later it goes out now.
func (m *modem) store(pdu string, startup bool) (int, error) {
	if _, err := validPDU(pdu); err != nil {
		return 0, err
	}
	m.mu.Lock()
	i, err := m.put(pdu)
	if err != nil {
		m.mu.Unlock()
		return 0, err
	}
	notify := m.cnmi[0] != 0 && m.cnmi[1] != 0
	if startup && notify {
		m.startup = append(m.startup, i)
	}
	m.mu.Unlock()
	if !startup && notify {
		m.write(fmt.Sprintf("\r\n+CMTI: \"SM\",%d\r\n", i))
	}
	return i, nil
}

// put stores pdu, unread, in the first free slot and returns its 1-based
// index; m.mu is held.
func (m *modem) put(pdu string) (int, error) {
	for i := range m.slots {
		if !m.slots[i].used {
			m.slots[i] = slot{used: true, stat: 0, pdu: strings.ToUpper(pdu)}
			return i + 1, nil
		}
	}
	return 0, errMemoryFull
}

// announce raises the +CMTI of the startup inbox, once.
func (m *modem) announce() {
	m.mu.Lock()
	idx := m.startup
	m.startup = nil
	m.mu.Unlock()
	for _, i := range idx {
		m.write(fmt.Sprintf("\r\n+CMTI: \"SM\",%d\r\n", i))
	}
}

func (m *modem) device() string { return m.pty.path }
