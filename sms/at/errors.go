package at

import (
	"errors"
	"fmt"
	"time"
)

// ErrUnknownOutcome is wrapped by SendPDU's error when the PDU and its Ctrl-Z
// were written but no definite answer came back (timeout, cancelled context,
// vanished modem): the network may have accepted the message. Resending it
// blindly is the documented cause of duplicates; callers record the outcome
// as "unknown" and resend only when the user allows duplicates.
var ErrUnknownOutcome = errors.New("outcome unknown: the message may have been sent")

// ErrClosed is wrapped when the modem's reader stopped (EOF, I/O error, or
// Close): the device vanished or was closed.
var ErrClosed = errors.New("modem closed")

// ErrCommand is the plain "ERROR" final result (no +CMS/+CME code).
var ErrCommand = errors.New("ERROR")

// ErrPINRequired is returned by Init when the SIM asks for a PIN and none was given.
var ErrPINRequired = errors.New("SIM PIN required")

// ErrSIMLocked is returned by Init when the SIM is in a state calq must not
// try to leave on its own (PUK, PH-SIM PIN, PIN2, ...).
var ErrSIMLocked = errors.New("SIM locked")

// TimeoutError reports that the modem did not answer in time. Waiting is
// "response" (a plain command), "prompt" (the '>' of AT+CMGS) or "result" (the
// +CMGS after the PDU; then the error also wraps ErrUnknownOutcome).
type TimeoutError struct {
	Waiting string
	After   time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no %s within %v", e.Waiting, e.After)
}

// Timeout reports true, like net.Error.
func (e *TimeoutError) Timeout() bool { return true }

// Transient reports true: retrying later or on another modem may succeed.
func (e *TimeoutError) Transient() bool { return true }

// NoPromptError is a final result code where AT+CMGS should have shown the
// '>' prompt: OK, or an error (Result), often the late answer to an
// earlier command that timed out, so it cannot be trusted to be about this
// message. Nothing was submitted, so it is transient; a real refusal
// fails the message once its retries run out.
type NoPromptError struct {
	Result error // nil for OK
}

func (e *NoPromptError) Error() string {
	if e.Result == nil {
		return "OK without a '>' prompt"
	}
	return fmt.Sprintf("%v without a '>' prompt", e.Result)
}

func (e *NoPromptError) Unwrap() error { return e.Result }

// Transient reports true: nothing was submitted.
func (*NoPromptError) Transient() bool { return true }

// CMSError is a "+CMS ERROR: <n>" final result (3GPP 27.005 §3.2.5, message
// service). Code is -1 when the modem sent text instead of a number (AT+CMEE=2).
type CMSError struct {
	Code int
	Text string
}

func (e *CMSError) Error() string {
	if e.Code < 0 {
		return "+CMS ERROR: " + e.Text
	}
	if s := cmsText[e.Code]; s != "" {
		return fmt.Sprintf("+CMS ERROR: %d (%s)", e.Code, s)
	}
	return fmt.Sprintf("+CMS ERROR: %d", e.Code)
}

// Transient reports whether the same message may succeed if tried again
// later, see the table in the package documentation.
func (e *CMSError) Transient() bool { return cmsTransient(e.Code) }

// CMEError is a "+CME ERROR: <n>" final result (3GPP 27.007 §9.2, equipment).
// Code is -1 when the modem sent text instead of a number.
type CMEError struct {
	Code int
	Text string
}

func (e *CMEError) Error() string {
	if e.Code < 0 {
		return "+CME ERROR: " + e.Text
	}
	if s := cmeText[e.Code]; s != "" {
		return fmt.Sprintf("+CME ERROR: %d (%s)", e.Code, s)
	}
	return fmt.Sprintf("+CME ERROR: %d", e.Code)
}

// Transient reports whether retrying later may succeed, see the package documentation.
func (e *CMEError) Transient() bool {
	switch e.Code {
	case 14, 30, 31, 100:
		return true
	}
	return false
}

// IsTransient reports whether err means "not done, but retrying later or on
// another modem may succeed". It is false for ErrUnknownOutcome (never retry
// blindly), for permanent +CMS/+CME codes, for plain ERROR and for errors it
// does not know; it is true for timeouts before the PDU was written and for a
// modem that vanished before the PDU was written.
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, ErrUnknownOutcome) {
		return false
	}
	var t interface{ Transient() bool }
	if errors.As(err, &t) {
		return t.Transient()
	}
	return errors.Is(err, ErrClosed)
}

func cmsTransient(code int) bool {
	switch {
	case code >= 512: // manufacturer specific: "please wait", MM establishment, lower-layer failure
		return true
	}
	switch code {
	case 27, 41, 42, 47, // destination out of service, temporary failure, congestion, resources unavailable
		192, 194, 212, // SC busy, SC system failure, SIM application toolkit busy
		304, 305, 314, 331, 332, 500: // invalid PDU/text mode parameter (modem quirks), SIM busy, no network, network timeout, unknown
		return true
	}
	return false
}

var cmsText = map[int]string{
	1: "unassigned number", 8: "operator determined barring", 10: "call barred",
	21: "short message transfer rejected", 27: "destination out of service",
	28: "unidentified subscriber", 29: "facility rejected", 30: "unknown subscriber",
	38: "network out of order", 41: "temporary failure", 42: "congestion",
	47: "resources unavailable", 50: "requested facility not subscribed",
	69: "requested facility not implemented", 95: "invalid message",
	96: "invalid mandatory information", 111: "protocol error", 127: "interworking unspecified",
	192: "SC busy", 193: "no SC subscription", 194: "SC system failure",
	195: "invalid SME address", 196: "destination SME barred", 197: "SM rejected: duplicate",
	208: "SIM SMS storage full", 212: "SIM application toolkit busy",
	300: "ME failure", 301: "SMS service of ME reserved", 302: "operation not allowed",
	303: "operation not supported", 304: "invalid PDU mode parameter",
	305: "invalid text mode parameter", 310: "SIM not inserted", 311: "SIM PIN required",
	312: "PH-SIM PIN required", 313: "SIM failure", 314: "SIM busy", 315: "SIM wrong",
	316: "SIM PUK required", 317: "SIM PIN2 required", 318: "SIM PUK2 required",
	320: "memory failure", 321: "invalid memory index", 322: "memory full",
	330: "SMSC address unknown", 331: "no network service", 332: "network timeout",
	340: "no +CNMA acknowledgement expected", 500: "unknown error",
}

var cmeText = map[int]string{
	0: "phone failure", 1: "no connection to phone", 3: "operation not allowed",
	4: "operation not supported", 5: "PH-SIM PIN required", 10: "SIM not inserted",
	11: "SIM PIN required", 12: "SIM PUK required", 13: "SIM failure", 14: "SIM busy",
	15: "SIM wrong", 16: "incorrect password", 17: "SIM PIN2 required", 18: "SIM PUK2 required",
	20: "memory full", 21: "invalid index", 22: "not found", 23: "memory failure",
	30: "no network service", 31: "network timeout", 32: "network not allowed, emergency calls only",
	100: "unknown",
}
