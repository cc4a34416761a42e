package smscmd

import (
	"bytes"
	"testing"
	"time"

	"calq/sms"
)

// TestWriteInboundJSON: calq sms recv --json prints message_type first,
// then the fields of sms.Inbound in their order.
func TestWriteInboundJSON(t *testing.T) {
	sent := time.Date(2025, 2, 28, 9, 30, 0, 0, time.FixedZone("", 3600))
	recvd := time.Date(2025, 2, 28, 9, 45, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		in   sms.Inbound
		want string
	}{
		{"message", sms.Inbound{Kind: "message", ID: 7, Modem: "gsm1", From: "+491701234567", Text: "a<b",
			Sent: sent, Received: recvd, Parts: 2, Total: 3, Missing: []int{2}},
			`{"message_type":"message","id":7,"modem":"gsm1","from":"+491701234567","text":"a\u003cb",` +
				`"sent":"2025-02-28T09:30:00+01:00","received":"2025-02-28T09:45:00Z","parts":2,"total":3,"missing":[2]}` + "\n"},
		{"report", sms.Inbound{Kind: "report", ID: 8, Modem: "gsm1", From: "+491701234567",
			Sent: sent, Received: recvd, Parts: 1, Total: 1, Outcome: "delivered", Discharged: recvd},
			`{"message_type":"report","id":8,"modem":"gsm1","from":"+491701234567",` +
				`"sent":"2025-02-28T09:30:00+01:00","received":"2025-02-28T09:45:00Z","parts":1,"total":1,` +
				`"outcome":"delivered","discharged":"2025-02-28T09:45:00Z","mr":0,"status":0}` + "\n"},
	} {
		var b bytes.Buffer
		if err := writeInbound(&b, tc.in, true); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := b.String(); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}
