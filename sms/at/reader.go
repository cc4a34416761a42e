package at

import (
	"io"
	"strings"
)

// readLoop is the only reader of m.rw: it splits the stream into tokens and
// hands each to dispatch until the device fails or is closed.
func (m *Modem) readLoop() {
	defer close(m.done)
	defer close(m.urc)
	var sp splitter
	buf := make([]byte, 1024)
	for {
		n, err := m.rw.Read(buf)
		for _, t := range sp.feed(buf[:n]) {
			m.dispatch(t)
		}
		if err != nil {
			for _, t := range sp.flush() {
				m.dispatch(t)
			}
			m.fail(err)
			return
		}
	}
}

// fail records the reader's end and fails the request in flight.
func (m *Modem) fail(err error) {
	if err == nil {
		err = io.EOF
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.readErr = err
	if r := m.pending; r != nil {
		m.pending = nil
		r.done <- commandReply{lines: r.lines, err: m.goneLocked()}
	}
}

// dispatch routes one token: to the request in flight (prompt, response
// line, final result), to the URC channel, or to the log when nobody wants it.
func (m *Modem) dispatch(t token) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.pending
	if t.prompt {
		if r != nil && r.prompt != nil {
			m.logf("< >")
			select {
			case r.prompt <- struct{}{}:
			default:
			}
			return
		}
		m.logf("dropped unexpected prompt")
		return
	}
	line := t.line
	if m.urcHead != "" {
		m.emitURC(m.urcHead + "\n" + line)
		m.urcHead = ""
		return
	}
	if r != nil && r.isEcho(line) {
		m.logf("< %s (echo)", redact(line))
		return
	}
	if r != nil {
		if final, err := finalResult(line); final {
			m.logf("< %s", line)
			m.pending = nil
			r.done <- commandReply{lines: r.lines, err: err}
			return
		}
	}
	if m.unsolicited(line, r) {
		if twoLineURC[prefixOf(line)] {
			m.urcHead = line
			return
		}
		m.emitURC(line)
		return
	}
	if r != nil {
		m.logf("< %s", line)
		r.lines = append(r.lines, line)
		r.got[prefixOf(line)] = true
		return
	}
	m.logf("dropped %q: no command in flight", line)
}

// unsolicited decides whether line is a URC rather than a response line of r.
// A known URC name is a response only if r's command carries that name and,
// for registration, only the first query-shaped line is.
func (m *Modem) unsolicited(line string, r *request) bool {
	p := prefixOf(line)
	if p == "" {
		return false
	}
	if r == nil {
		return true // nothing asked: any named result code is unsolicited
	}
	if p != r.prefix {
		return urcNames[p]
	}
	switch p {
	case "+CREG", "+CGREG", "+CEREG", "+C5GREG":
		return r.got[p] || !registrationReply(line)
	}
	return false
}

func (m *Modem) emitURC(s string) {
	m.logf("urc %s", s)
	select {
	case m.urc <- s:
	default:
		m.logf("dropped urc %q: channel full", s)
	}
}

// isEcho reports whether line is the modem echoing what we wrote; echo may be
// on whether or not ATE0 took effect. The PDU's echo may carry the prompt.
func (r *request) isEcho(line string) bool {
	line = strings.TrimSpace(strings.TrimPrefix(line, ">"))
	for _, e := range r.echoes {
		if strings.EqualFold(line, e) {
			return true
		}
	}
	return false
}
