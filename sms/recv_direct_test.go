package sms

import (
	"context"
	"path/filepath"
	"testing"
)

// TestDirectPDU: the PDU of a +CDS or +CMT, with its SMSC field or
// without one (the <length> says), comes out SMSC field first.
func TestDirectPDU(t *testing.T) {
	tpdu := recvReport[16:] // V20 without its 8-octet SMSC field: 22 octets
	for _, tc := range []struct {
		name, urc, want string
		ok              bool
	}{
		{"+CDS with SMSC", "+CDS: 22\n" + recvReport, recvReport, true},
		{"+CDS without SMSC", "+CDS: 22\n" + tpdu, "00" + tpdu, true},
		{"+CMT with alpha", "+CMT: ,22\n" + recvReport, recvReport, true},
		{"lower case", "+CDS: 22\n" + "07915383750000750618" + "05810531f1019082416500400190824165004000", recvReport, true},
		{"no PDU", "+CDS: 22", "", false},
		{"empty PDU line", "+CDS: 22\n ", "", false},
	} {
		got, ok := directPDU(tc.urc)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestReceiveDirect: a report handed out with +CDS is recorded and filed
// without AT+CMGD; one the modem also stored (listed in the same poll)
// is filed once, from the listing, and deleted from the modem.
func TestReceiveDirect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		slots   map[int]string
		direct  []string
		deletes int
	}{
		{"handed out only", map[int]string{}, []string{recvReport}, 0},
		{"handed out twice", map[int]string{}, []string{recvReport, recvReport}, 0},
		{"handed out and stored", map[int]string{3: recvReport}, []string{recvReport}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			j := recvOpen(t, filepath.Join(t.TempDir(), "calq.db"))
			m := &recvFakeModem{slots: tc.slots}
			if err := recvPoll(ctx, "m0", m, j, RecvOptions{}.withDefaults(), tc.direct); err != nil {
				t.Fatal(err)
			}
			got, err := Receive(ctx, nil, j, RecvOptions{})
			if err != nil {
				t.Fatal(err)
			}
			recvCheck(t, "Receive", got, []string{"report 50131 mr=24 delivered"})
			if len(m.deletes) != tc.deletes || len(m.slots) != 0 {
				t.Errorf("deleted %v, left %v; want %d deletes and an empty memory", m.deletes, m.slots, tc.deletes)
			}
			// Listed again, nothing new: the direct PDU is not held as on the modem.
			if err := recvPoll(ctx, "m0", m, j, RecvOptions{}.withDefaults(), nil); err != nil {
				t.Fatal(err)
			}
			if again, err := Receive(ctx, nil, j, RecvOptions{}); err != nil || len(again) != 0 {
				t.Errorf("second Receive: %v, %v; want nothing", again, err)
			}
		})
	}
}
