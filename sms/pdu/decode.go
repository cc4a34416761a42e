package pdu

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Direction is the way a PDU travelled, which decides what its
// message-type bits mean (TS 23.040 §9.2.3.1).
type Direction int

const (
	// Auto reads MTI 1 as SUBMIT, 0 as DELIVER and 2 as STATUS-REPORT: the
	// common case of PDUs sent with AT+CMGS and read with AT+CMGL.
	Auto Direction = iota
	// MO: sent by the phone or modem (SUBMIT, DELIVER-REPORT, COMMAND).
	MO
	// MT: received by the phone or modem (DELIVER, SUBMIT-REPORT, STATUS-REPORT).
	MT
)

func (d Direction) String() string { return [...]string{"auto", "mo", "mt"}[d] }

// ParseDirection reads "mo", "mt" or "auto" (or "").
func ParseDirection(s string) (Direction, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return Auto, nil
	case "mo":
		return MO, nil
	case "mt":
		return MT, nil
	}
	return Auto, fmt.Errorf("unknown direction %q (valid: mo, mt, auto)", s)
}

// DecodeError is a malformed PDU: the field that could not be read and the
// offset of the octet where it failed, counted from the start of the PDU
// (the SMSC field is octet 0).
type DecodeError struct {
	Field  string // "smsc", "first octet", "mr", "da", "oa", "ra", "pid", "dcs", "vp", "scts", "dt", "st", "udl", "udh", "ud", or "hex"
	Offset int
	Err    error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("pdu: %s at octet %d: %v", e.Field, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// ErrTruncated is wrapped by a DecodeError when the PDU ends inside a field.
var ErrTruncated = errors.New("PDU ends too early")

// reader walks a PDU, turning every short read into a DecodeError.
type reader struct {
	b   []byte
	off int
}

func (r *reader) fail(field string, format string, args ...any) error {
	return &DecodeError{Field: field, Offset: r.off, Err: fmt.Errorf(format, args...)}
}

func (r *reader) bytes(field string, n int) ([]byte, error) {
	if n < 0 || r.off+n > len(r.b) {
		return nil, &DecodeError{Field: field, Offset: r.off, Err: fmt.Errorf("%w: %d more octets needed, %d left", ErrTruncated, n, len(r.b)-r.off)}
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (r *reader) byte(field string) (byte, error) {
	b, err := r.bytes(field, 1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// Concat is a concatenation information element: part Seq of Total of the
// message with reference Ref, which is Bits (8 or 16) wide.
type Concat struct {
	Ref   int `json:"ref"`
	Total int `json:"total"`
	Seq   int `json:"seq"`
	Bits  int `json:"bits"`
}

// Message is one decoded TPDU. Fields that its type lacks stay zero; its
// JSON form (MarshalJSON) carries only the fields of its type.
type Message struct {
	Type       string // "SUBMIT", "DELIVER", "STATUS-REPORT", "SUBMIT-REPORT", "DELIVER-REPORT", "COMMAND"
	SMSC       string // "" when the PDU has no SMSC address (00)
	FirstOctet byte
	MR         int    // message reference: SUBMIT, STATUS-REPORT, COMMAND
	DA, OA, RA string // destination (SUBMIT, COMMAND), originator (DELIVER), recipient (STATUS-REPORT)
	TOA        byte   // type of address of DA, OA or RA
	PID        byte
	DCS        byte
	Class      int  // message class 0 (flash) to 3, or -1 for none
	SRR        bool // SUBMIT: status report requested; DELIVER: one will be returned; STATUS-REPORT: it answers a COMMAND
	VPSeconds  int  // relative validity in seconds; 0 when none or absolute
	VPAbsolute time.Time
	SCTS, DT   time.Time // service centre time stamp; discharge time (STATUS-REPORT)
	ST         int       // TP-Status: 0-31 delivered, 32-63 still trying, 64-127 failed
	Concat     *Concat
	UDH        []byte // the user data header without its length octet, when present
	Text       string // the text for "gsm7" and "ucs2"
	Data       []byte // the user data after the header for "8bit" and "compressed"
	Encoding   string // "gsm7", "ucs2", "8bit" or "compressed"
}

// Decode reads a hex PDU as a modem shows it, SMSC field first. It never
// panics; a malformed PDU gives a *DecodeError. Octets after the user data
// are ignored, as some modems pad.
func Decode(hexPDU string, dir Direction) (Message, error) {
	s := strings.TrimSpace(hexPDU)
	b, err := hex.DecodeString(s)
	if err != nil {
		off := 0
		var ie hex.InvalidByteError
		if errors.As(err, &ie) {
			off = strings.IndexByte(s, byte(ie)) / 2
		} else {
			off = len(s) / 2
		}
		return Message{}, &DecodeError{Field: "hex", Offset: off, Err: err}
	}
	r := &reader{b: b}
	m := Message{Class: -1, ST: -1}
	smsc, err := r.smscAddress()
	if err != nil {
		return m, err
	}
	m.SMSC = smsc.Number
	fo, err := r.byte("first octet")
	if err != nil {
		return m, err
	}
	m.FirstOctet = fo
	mti := fo & 3
	if dir == Auto {
		dir = MT
		if mti == 1 {
			dir = MO
		}
	}
	switch {
	case dir == MO && mti == 1:
		return m, r.submit(&m)
	case dir == MT && mti == 0:
		return m, r.deliver(&m)
	case dir == MT && mti == 2:
		return m, r.statusReport(&m)
	case dir == MO && mti == 2:
		return m, r.command(&m)
	case dir == MT && mti == 1:
		return m, r.report(&m, "SUBMIT-REPORT", true)
	case dir == MO && mti == 0:
		return m, r.report(&m, "DELIVER-REPORT", false)
	}
	return m, &DecodeError{Field: "first octet", Offset: r.off - 1, Err: fmt.Errorf("reserved message type indicator 3 (first octet %02X)", fo)}
}

func (r *reader) submit(m *Message) error {
	m.Type = "SUBMIT"
	m.SRR = m.FirstOctet&0x20 != 0
	mr, err := r.byte("mr")
	if err != nil {
		return err
	}
	m.MR = int(mr)
	da, err := r.address("da")
	if err != nil {
		return err
	}
	m.DA, m.TOA = da.Number, da.TOA
	if err := r.pidDCS(m); err != nil {
		return err
	}
	if err := r.validity(m, m.FirstOctet>>3&3); err != nil {
		return err
	}
	return r.userData(m, m.FirstOctet&0x40 != 0)
}

func (r *reader) deliver(m *Message) error {
	m.Type = "DELIVER"
	m.SRR = m.FirstOctet&0x20 != 0
	oa, err := r.address("oa")
	if err != nil {
		return err
	}
	m.OA, m.TOA = oa.Number, oa.TOA
	if err := r.pidDCS(m); err != nil {
		return err
	}
	if m.SCTS, err = r.timestamp("scts"); err != nil {
		return err
	}
	return r.userData(m, m.FirstOctet&0x40 != 0)
}

func (r *reader) statusReport(m *Message) error {
	m.Type = "STATUS-REPORT"
	m.SRR = m.FirstOctet&0x20 != 0
	mr, err := r.byte("mr")
	if err != nil {
		return err
	}
	m.MR = int(mr)
	ra, err := r.address("ra")
	if err != nil {
		return err
	}
	m.RA, m.TOA = ra.Number, ra.TOA
	if m.SCTS, err = r.timestamp("scts"); err != nil {
		return err
	}
	if m.DT, err = r.timestamp("dt"); err != nil {
		return err
	}
	st, err := r.byte("st")
	if err != nil {
		return err
	}
	m.ST = int(st)
	if r.off == len(r.b) {
		return nil // the optional parameters are absent
	}
	pi, err := r.byte("pi")
	if err != nil {
		return err
	}
	return r.optional(m, pi)
}

// command reads an SMS-COMMAND; its command data is kept in Data.
func (r *reader) command(m *Message) error {
	m.Type = "COMMAND"
	m.SRR = m.FirstOctet&0x20 != 0
	b, err := r.bytes("mr", 1)
	if err != nil {
		return err
	}
	m.MR = int(b[0])
	if m.PID, err = r.byte("pid"); err != nil {
		return err
	}
	if _, err = r.bytes("ct", 2); err != nil { // command type, message number
		return err
	}
	da, err := r.address("da")
	if err != nil {
		return err
	}
	m.DA, m.TOA = da.Number, da.TOA
	n, err := r.byte("cdl")
	if err != nil {
		return err
	}
	m.Data, err = r.bytes("cd", int(n))
	m.Encoding = "8bit"
	return err
}

// report reads the RP-ACK form of SUBMIT-REPORT (with its SCTS) and
// DELIVER-REPORT: first octet, parameter indicator, optional PID, DCS, UD.
func (r *reader) report(m *Message, typ string, scts bool) error {
	m.Type = typ
	pi, err := r.byte("pi")
	if err != nil {
		return err
	}
	if scts {
		if m.SCTS, err = r.timestamp("scts"); err != nil {
			return err
		}
	}
	return r.optional(m, pi)
}

// optional reads the PID, DCS and user data that a parameter indicator
// announces (the tail of STATUS-REPORT and the reports).
func (r *reader) optional(m *Message, pi byte) error {
	var err error
	if pi&1 != 0 {
		if m.PID, err = r.byte("pid"); err != nil {
			return err
		}
	}
	if pi&2 != 0 {
		if m.DCS, err = r.byte("dcs"); err != nil {
			return err
		}
	}
	m.Class, m.Encoding = interpretDCS(m.DCS)
	if pi&4 != 0 {
		return r.userData(m, m.FirstOctet&0x40 != 0)
	}
	return nil
}
