// Package kannel is what calq shares with Kannel's HTTP interfaces: the
// parameters of sendsms, its replies, the dlr-mask bits and the escape
// codes of a dlr-url. It is pure: no I/O.
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

// Expand returns tmpl with its escape codes replaced by d's values,
// URL-escaped as Kannel does. tmpl has passed CheckURL.
func Expand(tmpl string, d DLR) string {
	panic("kannel: not built yet")
}

// CheckURL checks a dlr-url: an absolute http or https URL whose escape
// codes are all Kannel's; the error names the first that is not.
func CheckURL(tmpl string) error {
	panic("kannel: not built yet")
}
