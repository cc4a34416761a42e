package sms

import (
	"strconv"
	"strings"

	"calq/sms/store"
)

// DirectSlot is the slot recorded for a PDU that a modem handed out with
// +CDS or +CMT (AT+CNMI's <ds>=1 or <mt>=2) instead of storing it: it
// is in no memory, so nothing is deleted, and the journal keeps it like
// the others.
const DirectSlot = -1

// withDirect adds to a modem's listing the PDUs that came directly, each
// once; one that the listing holds too (a modem that both stored and
// handed it out) is left to the listing, so it is filed once.
func withDirect(listed []store.InboxSlot, direct []string) []store.InboxSlot {
	seen := make(map[string]bool, len(listed)+len(direct))
	for _, l := range listed {
		seen[strings.ToUpper(l.PDU)] = true
	}
	for _, d := range direct {
		d = strings.ToUpper(d)
		if !seen[d] {
			seen[d] = true
			listed = append(listed, store.InboxSlot{Slot: DirectSlot, PDU: d})
		}
	}
	return listed
}

// directPDU returns the PDU of a two-line +CDS or +CMT URC as at.Modem
// hands it out ("+CDS: 25\n<hex>"), SMSC field first: 27.005 puts it
// there, but some modems leave it out, which the <length> (octets after
// the SMSC field) tells; then an empty one (00) is added. ok is false for
// a line without a PDU.
func directPDU(urc string) (pdu string, ok bool) {
	head, pdu, ok := strings.Cut(urc, "\n")
	pdu = strings.TrimSpace(pdu)
	if !ok || pdu == "" {
		return "", false
	}
	_, args, _ := strings.Cut(head, ":")
	f := strings.Split(args, ",")
	if n, err := strconv.Atoi(strings.TrimSpace(f[len(f)-1])); err == nil && n*2 == len(pdu) {
		pdu = "00" + pdu
	}
	return strings.ToUpper(pdu), true
}
