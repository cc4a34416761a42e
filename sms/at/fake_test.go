package at

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test timeouts are distinct so a script can fire exactly the one it means.
const (
	tPrompt  = 1 * time.Second
	tResult  = 2 * time.Second
	tCommand = 3 * time.Second
	tProbe   = 4 * time.Second
)

// fakeClock hands out timers that fire only when a script says so.
type fakeClock struct {
	mu     sync.Mutex
	timers map[time.Duration][]chan time.Time
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if c.timers == nil {
		c.timers = map[time.Duration][]chan time.Time{}
	}
	c.timers[d] = append(c.timers[d], ch)
	return ch
}

// fire expires every pending timer of duration d and reports how many.
func (c *fakeClock) fire(d time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.timers[d])
	for _, ch := range c.timers[d] {
		ch <- time.Time{}
	}
	delete(c.timers, d)
	return n
}

// step is one exchange of the canned modem: read exactly expect (the bytes
// calq must write), then send reply, then fire a timer, run do, or hang up.
type step struct {
	expect string
	reply  string
	fire   time.Duration
	do     func()
	hangup bool
}

// transcript runs a scripted modem on one end of a net.Pipe and a Modem on
// the other. finish closes the Modem and reports any deviation, including
// bytes calq wrote after the script ended.
type transcript struct {
	*Modem
	clock *fakeClock
	log   *syncBuffer
	done  chan error
}

func newTranscript(t *testing.T, steps ...step) *transcript {
	t.Helper()
	calq, modem := net.Pipe()
	tr := &transcript{clock: &fakeClock{}, log: &syncBuffer{}, done: make(chan error, 1)}
	tr.Modem = New(calq, Options{
		PromptTimeout: tPrompt, ResultTimeout: tResult, CommandTimeout: tCommand, ProbeTimeout: tProbe,
		After: tr.clock.After, Log: tr.log,
	})
	go func() { tr.done <- play(modem, tr.clock, steps) }()
	t.Cleanup(func() { tr.finish(t) })
	return tr
}

func play(conn net.Conn, clock *fakeClock, steps []step) error {
	defer conn.Close()
	for i, s := range steps {
		if s.expect != "" {
			got := make([]byte, 0, len(s.expect))
			b := make([]byte, 1)
			for len(got) < len(s.expect) {
				if _, err := conn.Read(b); err != nil {
					return fmt.Errorf("step %d: calq wrote %q then %v, want %q", i, got, err, s.expect)
				}
				got = append(got, b[0])
				if !strings.HasPrefix(s.expect, string(got)) {
					return fmt.Errorf("step %d: calq wrote %q, want %q", i, got, s.expect)
				}
			}
		}
		if s.reply != "" {
			if _, err := io.WriteString(conn, s.reply); err != nil {
				return fmt.Errorf("step %d: reply: %v", i, err)
			}
		}
		if s.fire != 0 && clock.fire(s.fire) == 0 {
			return fmt.Errorf("step %d: no %v timer pending", i, s.fire)
		}
		if s.do != nil {
			s.do()
		}
		if s.hangup {
			return nil
		}
	}
	rest, _ := io.ReadAll(conn)
	if len(rest) > 0 {
		return fmt.Errorf("calq wrote %q after the script ended", rest)
	}
	return nil
}

func (tr *transcript) finish(t *testing.T) {
	t.Helper()
	tr.Close()
	if err := <-tr.done; err != nil {
		t.Errorf("modem side: %v\nlog:\n%s", err, tr.log)
	}
	tr.done <- nil // finish may run twice (explicitly and in Cleanup)
}

// urcs drains the URCs received so far.
func (tr *transcript) urcs() []string {
	var out []string
	for {
		select {
		case u, ok := <-tr.URC():
			if !ok {
				return out
			}
			out = append(out, u)
		default:
			return out
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ok is a modem's answer with CR LF framing: ok("+CSQ: 21,99") is
// "\r\n+CSQ: 21,99\r\n\r\nOK\r\n".
func ok(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("\r\n" + l + "\r\n")
	}
	return b.String() + "\r\nOK\r\n"
}

func errLine(s string) string { return "\r\n" + s + "\r\n" }
