package pdu

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// StatusReport is the content of an SMS-STATUS-REPORT (TS 23.040
// §9.2.2.3) that EncodeStatusReport writes.
type StatusReport struct {
	SMSC     string    // the service centre that sends it; "" writes 00
	MR       int       // TP-MR of the SUBMIT it answers, 0-255
	RA       Address   // the recipient of that SUBMIT, its type of address kept
	SCTS, DT time.Time // when the centre took the SUBMIT; when it was delivered or given up
	ST       int       // TP-Status, 0-255: 0 delivered, 32-63 still trying, 64-127 failed
}

// EncodeStatusReport builds the hex SMS-STATUS-REPORT a modem lists with
// AT+CMGL or hands out with +CDS, SMSC field first: for emulators and
// tests. Its TP-SRQ says it answers a SUBMIT; it carries no optional
// parameters. SCTS and DT must fall in 2000-2099.
func EncodeStatusReport(r StatusReport) (string, error) {
	switch {
	case r.MR < 0 || r.MR > 255:
		return "", fmt.Errorf("pdu: message reference %d is not between 0 and 255", r.MR)
	case r.ST < 0 || r.ST > 255:
		return "", fmt.Errorf("pdu: status %d is not between 0 and 255", r.ST)
	case r.RA.Number == "":
		return "", fmt.Errorf("pdu: status report without a recipient")
	}
	for _, t := range []time.Time{r.SCTS, r.DT} {
		if y := t.Year(); y < 2000 || y > 2099 {
			return "", fmt.Errorf("pdu: time stamp %v is not in 2000-2099", t)
		}
	}
	smsc, err := smscField(r.SMSC)
	if err != nil {
		return "", err
	}
	tpdu := []byte{0x06, byte(r.MR)} // MTI 2, TP-MMS: no more messages waiting
	tpdu = append(tpdu, r.RA.encode(false)...)
	tpdu = append(tpdu, encodeTimestamp(r.SCTS)...)
	tpdu = append(tpdu, encodeTimestamp(r.DT)...)
	tpdu = append(tpdu, byte(r.ST))
	return strings.ToUpper(hex.EncodeToString(append(smsc, tpdu...))), nil
}
