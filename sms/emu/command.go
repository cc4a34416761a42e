package emu

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// resultError is a command's failure: +CME ERROR (or plain ERROR, as
// AT+CMEE says) or +CMS ERROR, which SMS commands give regardless.
type resultError struct {
	cms  bool
	code int
}

func (e *resultError) Error() string { return fmt.Sprintf("error %d", e.code) }

func cmeErr(code int) error { return &resultError{code: code} }
func cmsErr(code int) error { return &resultError{cms: true, code: code} }

// errUnknown is what an unknown command or bad syntax gets.
var errUnknown = cmeErr(100)

var cmeText = map[int]string{
	3: "operation not allowed", 4: "operation not supported", 10: "SIM not inserted",
	11: "SIM PIN required", 12: "SIM PUK required", 13: "SIM failure", 16: "incorrect password", 21: "invalid index", 100: "unknown",
}

// finalFor turns err into the final result code.
func (m *modem) finalFor(err error) string {
	if err == nil {
		return "OK"
	}
	re, ok := err.(*resultError)
	if !ok {
		re = &resultError{code: 100}
	}
	if re.cms {
		return fmt.Sprintf("+CMS ERROR: %d", re.code)
	}
	m.mu.Lock()
	cmee := m.cmee
	m.mu.Unlock()
	switch {
	case cmee == 1:
		return fmt.Sprintf("+CME ERROR: %d", re.code)
	case cmee == 2 && cmeText[re.code] != "":
		return "+CME ERROR: " + cmeText[re.code]
	}
	return "ERROR"
}

// command runs one command line. Lines not starting with AT are ignored,
// as modems do with line noise.
func (m *modem) command(ctx context.Context, line string) {
	line = strings.TrimSpace(line)
	if len(line) < 2 || !strings.EqualFold(line[:2], "AT") {
		return
	}
	f := m.takeFault(line)
	lines, prompted, err := m.execute(line[2:], f)
	if prompted {
		return
	}
	if !m.wait(ctx, f.Delay) {
		return
	}
	m.respond(lines, m.finalFor(err), f.URC)
	m.announce()
}

// execute runs the basic (E0, Z, I...) and extended (+CSQ, ;-separated)
// commands of one line. prompted reports that AT+CMGS took over the
// input, so there is no result yet.
func (m *modem) execute(rest string, f Fault) (lines []string, prompted bool, err error) {
	for rest != "" {
		if c := rest[0]; c == '+' || c == '^' || c == '$' {
			var cmd string
			cmd, rest = splitCommand(rest)
			name, op, args := parseExtended(cmd)
			if name == "+CMGS" && op == "=" {
				if err := m.startSubmit(args, f); err != nil {
					return lines, false, err
				}
				return lines, true, nil
			}
			out, err := m.extended(name, op, args)
			lines = append(lines, out...)
			if err != nil {
				return lines, false, err
			}
			continue
		}
		var out []string
		out, rest, err = m.basic(rest)
		lines = append(lines, out...)
		if err != nil {
			return lines, false, err
		}
	}
	return lines, false, nil
}

// splitCommand cuts the first extended command off s at a ';' outside
// quotes.
func splitCommand(s string) (cmd, rest string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ';':
			if !quoted {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

// parseExtended splits "+CPMS="SM","SM"" into "+CPMS", "=" and [SM SM];
// op is "" (execute), "?" (read), "=?" (test) or "=" (set).
func parseExtended(cmd string) (name, op string, args []string) {
	i := strings.IndexAny(cmd, "=?")
	if i < 0 {
		return strings.ToUpper(cmd), "", nil
	}
	name, tail := strings.ToUpper(cmd[:i]), cmd[i:]
	switch {
	case tail == "?":
		return name, "?", nil
	case tail == "=?":
		return name, "=?", nil
	case tail[0] == '=':
		return name, "=", splitArgs(tail[1:])
	}
	return name, "bad", nil
}

// splitArgs splits on commas outside quotes and unquotes.
func splitArgs(s string) []string {
	var args []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			args = append(args, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(args, strings.TrimSpace(cur.String()))
}

// basic runs one basic command (E1, V1, Q0, Z, &F, I, S0=0, ...) from the
// front of s.
func (m *modem) basic(s string) (lines []string, rest string, err error) {
	name := strings.ToUpper(s[:1])
	i := 1
	if name == "&" && len(s) > 1 {
		name, i = strings.ToUpper(s[:2]), 2
	}
	if name == "S" { // S<n>=<v> or S<n>?
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '=' || s[i] == '?') {
			i++
		}
		return nil, s[i:], nil
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	arg, rest := s[i:j], s[j:]
	m.mu.Lock()
	defer m.mu.Unlock()
	switch name {
	case "E":
		m.echo = arg == "1"
	case "Z", "&F":
		m.echo, m.cmee = true, 0
	case "I":
		lines = []string{"calq GSM modem emulator"}
	case "V", "Q", "X", "L", "M", "&C", "&D", "&W", "&K":
	default:
		return nil, "", errUnknown
	}
	return lines, rest, nil
}

// extended runs one extended command.
func (m *modem) extended(name, op string, args []string) ([]string, error) {
	h, ok := handlers[name]
	if !ok {
		return nil, errUnknown
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locked && h.needsSIM {
		if m.simState() == SIMPUK {
			if h.sms {
				return nil, cmsErr(316)
			}
			return nil, cmeErr(12)
		}
		if h.sms {
			return nil, cmsErr(311)
		}
		return nil, cmeErr(11)
	}
	return h.fn(m, op, args)
}

// handler serves one extended command with m.mu held.
type handler struct {
	fn       func(m *modem, op string, args []string) ([]string, error)
	needsSIM bool // refused until the PIN is given
	sms      bool // fails with +CMS ERROR rather than +CME ERROR
}

// intArg parses args[i], or returns def when it is absent or empty.
func intArg(args []string, i, def int) (int, error) {
	if i >= len(args) || args[i] == "" {
		return def, nil
	}
	n, err := strconv.Atoi(args[i])
	if err != nil {
		return 0, errUnknown
	}
	return n, nil
}
