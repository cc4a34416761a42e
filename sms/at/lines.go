package at

import (
	"strconv"
	"strings"
)

// maxLine bounds a line without terminator; longer input is cut into lines of
// this size so a babbling device cannot grow memory without bound. The longest
// legitimate line is a hex PDU (under 400 characters).
const maxLine = 4096

// token is one unit of modem output: a line (terminators and surrounding
// control characters stripped, never empty) or the '>' prompt of AT+CMGS,
// which has no line ending.
type token struct {
	line   string
	prompt bool
}

// splitter cuts a byte stream into tokens. Lines end at CR or LF (modems send
// CR LF; echo ends with CR alone). The zero value is ready to use.
type splitter struct {
	partial []byte
}

// feed consumes p and returns the complete tokens in it. A '>' (optionally
// followed by a space) left over with no line ending is a prompt: the modem
// sends nothing after it until we write.
func (s *splitter) feed(p []byte) []token {
	var out []token
	for _, b := range p {
		if b == '\r' || b == '\n' {
			out = s.emit(out)
			continue
		}
		s.partial = append(s.partial, b)
		if len(s.partial) >= maxLine {
			out = s.emit(out)
		}
	}
	if strings.TrimSpace(string(s.partial)) == ">" {
		s.partial = s.partial[:0]
		out = append(out, token{prompt: true})
	}
	return out
}

// flush returns what is left at end of input as a last line.
func (s *splitter) flush() []token {
	return s.emit(nil)
}

func (s *splitter) emit(out []token) []token {
	line := strings.TrimFunc(string(s.partial), isSpaceOrControl)
	s.partial = s.partial[:0]
	switch line {
	case "":
		return out
	case ">": // the prompt, with more bytes (a URC) in the same read
		return append(out, token{prompt: true})
	}
	return append(out, token{line: line})
}

// isSpaceOrControl trims echoed ESC (0x1b) and Ctrl-Z (0x1a) along with blanks.
func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }

// finalResult reports whether line ends a command, and the error it carries.
func finalResult(line string) (bool, error) {
	switch line {
	case "OK":
		return true, nil
	case "ERROR", "COMMAND NOT SUPPORT", "TOO MANY PARAMETERS":
		return true, ErrCommand
	}
	if rest, ok := strings.CutPrefix(line, "+CMS ERROR:"); ok {
		code, text := errorCode(rest, cmsText)
		return true, &CMSError{Code: code, Text: text}
	}
	if rest, ok := strings.CutPrefix(line, "+CME ERROR:"); ok {
		code, text := errorCode(rest, cmeText)
		return true, &CMEError{Code: code, Text: text}
	}
	return false, nil
}

// errorCode reads an error's number, or with AT+CMEE=2 its text, which
// names maps back to the number when it knows it (so that the error is
// classed as the number would be); -1 when it does not.
func errorCode(s string, names map[int]string) (int, string) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err == nil && n >= 0 {
		return n, ""
	}
	for code, name := range names {
		if strings.EqualFold(name, s) {
			return code, s
		}
	}
	return -1, s
}

// prefixOf returns the result-code name of a line: "+CMTI" for
// `+CMTI: "SM",3`, "RING" for RING, "" when the line has no name.
func prefixOf(line string) string {
	if line == "" || (line[0] != '+' && line[0] != '^') {
		if urcWords[line] {
			return line
		}
		return ""
	}
	if i := strings.IndexByte(line, ':'); i > 0 {
		return line[:i]
	}
	return line
}

// commandPrefix is the result-code name a command's response lines carry:
// "+CREG" for AT+CREG?, "+CMGS" for AT+CMGS=23, "" for ATE0.
func commandPrefix(cmd string) string {
	if len(cmd) < 3 || !strings.EqualFold(cmd[:2], "AT") || (cmd[2] != '+' && cmd[2] != '^') {
		return ""
	}
	rest := cmd[2:]
	if i := strings.IndexAny(rest, "=?"); i >= 0 {
		rest = rest[:i]
	}
	return strings.ToUpper(rest)
}

// urcNames are unsolicited result codes that may arrive at any time, also in
// the middle of another command's response.
var urcNames = map[string]bool{
	"+CMTI": true, "+CMT": true, "+CDSI": true, "+CDS": true, "+CBM": true, "+CBMI": true,
	"+CREG": true, "+CGREG": true, "+CEREG": true, "+C5GREG": true,
	"+CUSD": true, "+CRING": true, "+CLIP": true, "+CCWA": true, "+CIEV": true,
	"+PBREADY": true, "+STIN": true, "+QIND": true, "+CGEV": true,
	"^RSSI": true, "^HCSQ": true, "^BOOT": true, "^MODE": true, "^SRVST": true,
	"^SIMST": true, "^SYSSTART": true, "^DSFLOWRPT": true, "^RFSWITCH": true,
	"^CEND": true, "^ORIG": true, "^CONF": true, "^CONN": true, "^STIN": true,
	"RING": true, "NO CARRIER": true,
}

var urcWords = map[string]bool{"RING": true, "NO CARRIER": true}

// twoLineURC names the URCs whose PDU follows on the next line.
var twoLineURC = map[string]bool{"+CMT": true, "+CDS": true, "+CBM": true}

// registrationReply tells a +CREG/+CGREG/+CEREG query response ("+CREG: 0,1",
// "+CREG: 2,1,\"00C3\",\"0001\"") from the unsolicited form ("+CREG: 1",
// "+CREG: 1,\"00C3\",\"0001\""): the response's second field is the status,
// an unquoted number; the unsolicited form has one field or a quoted LAC there.
func registrationReply(line string) bool {
	_, rest, _ := strings.Cut(line, ":")
	f := strings.Split(rest, ",")
	if len(f) < 2 {
		return false
	}
	_, err := strconv.Atoi(strings.TrimSpace(f[1]))
	return err == nil
}
