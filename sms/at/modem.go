package at

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Options tune a Modem. Zero fields take the defaults shown.
type Options struct {
	PromptTimeout  time.Duration // '>' after AT+CMGS: 10 s (smstools3, ModemManager)
	ResultTimeout  time.Duration // +CMGS after the PDU, and AT+CMGL: 60 s (smstools3)
	CommandTimeout time.Duration // any other command: 10 s
	ProbeTimeout   time.Duration // each of Init's AT probes: 2 s
	Storage        string        // message storage for AT+CPMS: "SM"
	Log            io.Writer     // if set, every line written and read ("> ", "< ", "urc "); PINs are masked

	// After replaces time.After, for tests.
	After func(time.Duration) <-chan time.Time
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.PromptTimeout, 10*time.Second)
	def(&o.ResultTimeout, 60*time.Second)
	def(&o.CommandTimeout, 10*time.Second)
	def(&o.ProbeTimeout, 2*time.Second)
	if o.Storage == "" {
		o.Storage = "SM"
	}
	if o.After == nil {
		o.After = time.After
	}
	return o
}

// urcBuffer is how many unsolicited lines wait for a reader before the
// oldest new ones are dropped: the reader goroutine never blocks on them.
const urcBuffer = 64

// Modem is an AT command session over one serial line. Its methods are safe
// for concurrent use; commands are serialised, one in flight at a time.
type Modem struct {
	rw   io.ReadWriter
	opt  Options
	sem  chan struct{} // held by the command in flight
	urc  chan string
	done chan struct{} // closed when the reader goroutine exits

	wmu sync.Mutex // serialises writes (a command and an ESC after a timeout)
	lmu sync.Mutex // serialises log lines

	mu      sync.Mutex
	pending *request
	urcHead string // first line of a two-line URC (+CMT, +CDS) awaiting its PDU
	readErr error  // set once the reader stopped
	closed  bool
}

// request is the command in flight.
type request struct {
	prefix string   // response lines' result-code name
	echoes []string // lines to drop as echo
	lines  []string
	got    map[string]bool   // response prefixes already seen
	prompt chan struct{}     // non-nil when a '>' is awaited
	done   chan commandReply // buffered: the reader never blocks
}

type commandReply struct {
	lines []string
	err   error
}

// New starts a session on rw (a serial port, a pty, a net.Conn in tests) and
// its reader goroutine, which runs until rw returns an error; Close stops it
// if rw is an io.Closer.
func New(rw io.ReadWriter, o Options) *Modem {
	m := &Modem{
		rw:   rw,
		opt:  o.withDefaults(),
		sem:  make(chan struct{}, 1),
		urc:  make(chan string, urcBuffer),
		done: make(chan struct{}),
	}
	go m.readLoop()
	return m
}

// URC returns the channel of unsolicited result codes (+CMTI, +CDSI, +CREG:
// 1, RING, ^RSSI, ...). A two-line URC (+CMT, +CDS) arrives as one string,
// header and PDU separated by "\n". The channel is closed when the reader
// stops. Lines that nobody reads are dropped once urcBuffer are waiting.
func (m *Modem) URC() <-chan string { return m.urc }

// Close closes the underlying device, if it is an io.Closer, and waits for
// the reader goroutine to stop.
func (m *Modem) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	c, ok := m.rw.(io.Closer)
	if !ok {
		return nil
	}
	err := c.Close()
	<-m.done
	return err
}

// Command sends cmd (e.g. "AT+CSQ", without CR) and returns the response
// lines without echo, URCs and the final OK. A final error result is returned
// as *CMSError, *CMEError or ErrCommand, wrapped with the command.
func (m *Modem) Command(ctx context.Context, cmd string) ([]string, error) {
	return m.command(ctx, cmd, m.opt.CommandTimeout)
}

func (m *Modem) command(ctx context.Context, cmd string, timeout time.Duration) ([]string, error) {
	if strings.ContainsAny(cmd, "\r\n\x1a\x1b") {
		return nil, fmt.Errorf("at: command %q contains a control character", cmd)
	}
	release, err := m.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("at: %s: %w", redact(cmd), err)
	}
	defer release()
	r, err := m.start(cmd, false)
	if err != nil {
		return nil, fmt.Errorf("at: %s: %w", redact(cmd), err)
	}
	timer := m.opt.After(timeout)
	if err := m.write(cmd + "\r"); err != nil {
		m.abandon(r)
		return nil, fmt.Errorf("at: %s: %w", redact(cmd), err)
	}
	select {
	case rep := <-r.done:
		if rep.err != nil {
			return rep.lines, fmt.Errorf("at: %s: %w", redact(cmd), rep.err)
		}
		return rep.lines, nil
	case <-timer:
		m.abandon(r)
		return nil, fmt.Errorf("at: %s: %w", redact(cmd), &TimeoutError{Waiting: "response", After: timeout})
	case <-ctx.Done():
		m.abandon(r)
		return nil, fmt.Errorf("at: %s: %w", redact(cmd), ctx.Err())
	}
}

// acquire takes the one command slot, or gives up when ctx is done or the
// modem is gone.
func (m *Modem) acquire(ctx context.Context) (func(), error) {
	select {
	case m.sem <- struct{}{}:
		return func() { <-m.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-m.done:
		return nil, m.gone()
	}
}

// start makes cmd the request in flight.
func (m *Modem) start(cmd string, prompt bool) (*request, error) {
	r := &request{
		prefix: commandPrefix(cmd),
		echoes: []string{cmd},
		got:    map[string]bool{},
		done:   make(chan commandReply, 1),
	}
	if prompt {
		r.prompt = make(chan struct{}, 1)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readErr != nil {
		return nil, m.goneLocked()
	}
	m.pending = r
	return r, nil
}

// abandon forgets r after a timeout or cancellation; lines that still come
// for it are logged and dropped.
func (m *Modem) abandon(r *request) {
	m.mu.Lock()
	if m.pending == r {
		m.pending = nil
	}
	m.mu.Unlock()
}

func (m *Modem) write(s string) error {
	m.logf("> %s", redact(strings.TrimRight(s, "\r")))
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if _, err := io.WriteString(m.rw, s); err != nil {
		return fmt.Errorf("%w: write: %w", ErrClosed, err) // an unplugged device: transient
	}
	return nil
}

func (m *Modem) gone() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.goneLocked()
}

func (m *Modem) goneLocked() error {
	if m.closed || m.readErr == nil {
		return ErrClosed
	}
	return fmt.Errorf("%w: %w", ErrClosed, m.readErr)
}

func (m *Modem) logf(format string, args ...any) {
	if m.opt.Log == nil {
		return
	}
	m.lmu.Lock()
	defer m.lmu.Unlock()
	fmt.Fprint(m.opt.Log, redact(fmt.Sprintf(format, args...))+"\n")
}

// redact masks the PIN in AT+CPIN="1234" for logs and errors.
// redact masks the PIN of an AT+CPIN=... anywhere in s (a command, its
// echo, a late echo logged as dropped), whatever the case.
// The search compares bytes in place: strings.ToUpper(s) may be longer
// than s (each byte that is not UTF-8 becomes a 3-byte U+FFFD), so an
// index into it would cut s elsewhere, showing digits of the PIN.
func redact(s string) string {
	const cmd = "+CPIN="
	for i := 0; i+len(cmd) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(cmd)], cmd) {
			return s[:i+len(cmd)] + `"****"`
		}
	}
	return s
}
