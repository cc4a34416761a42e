// Package kannel is what calq shares with Kannel's HTTP interfaces: the
// parameters of sendsms (ParseSend, Decode), its replies (Reply,
// *Error), the dlr-mask bits and the escape codes of a dlr-url
// (CheckURL, Expand). It is pure: no I/O; every function is safe for
// concurrent use and costs time linear in its input.
package kannel

import "time"

// Report types (dlr-mask bits, and %d's value).
const (
	Delivered    = 1  // delivered to the phone
	NotDelivered = 2  // not delivered to the phone
	Queued       = 4  // queued on the SMSC
	SMSCAccepted = 8  // accepted by the SMSC (ACK)
	SMSCRejected = 16 // rejected by the SMSC (NACK)
)

// AllTypes is every dlr-mask bit Kannel defines; a mask with others is
// refused.
const AllTypes = Delivered | NotDelivered | Queued | SMSCAccepted | SMSCRejected

// NetworkTypes are the report types that only a status report from the
// network gives (the others come from the modem's answer to AT+CMGS): a
// mask with one of them asks the network for status reports.
const NetworkTypes = Delivered | NotDelivered | Queued

// DLR is what a dlr-url's escape codes are replaced with for one report.
type DLR struct {
	Type      int       // one of the report types (%d)
	SMSCReply string    // %A: the network's answer, e.g. "id:42 stat:DELIVRD" or the modem's error
	From      string    // %p: the sender (the modem's number, when known)
	To        string    // %P: the recipient
	Time      time.Time // %t, %T: when the report was made
	ID        string    // %I: calq's message id
	ForeignID string    // %F: the network's message reference
	SMSCID    string    // %i: the modem's name
	Text      string    // %a, %b: the message's text
	Coding    int       // %c
	MClass    int       // %m; -1 none
	Charset   string    // %C
	User      string    // %n: the sendsms user
}
