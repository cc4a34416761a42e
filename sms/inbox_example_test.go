package sms_test

import (
	"fmt"
	"time"

	"calq/sms"
)

// The environment of an --exec command for a message whose part 2 of 3
// never came.
func ExampleInboundEnv() {
	in := sms.Inbound{Kind: "message", ID: 7, Modem: "gsm1", From: "+491701234567", Text: "Hi … bye",
		Sent:     time.Date(2025, 2, 28, 9, 30, 0, 0, time.FixedZone("", 3600)),
		Received: time.Date(2025, 2, 28, 9, 45, 0, 0, time.UTC), Parts: 2, Total: 3, Missing: []int{2}}
	for _, kv := range sms.InboundEnv(in) {
		fmt.Println(kv)
	}
	// Output:
	// SMS_TYPE=message
	// SMS_ID=7
	// SMS_MODEM=gsm1
	// SMS_FROM=+491701234567
	// SMS_TEXT=Hi … bye
	// SMS_SENT=2025-02-28T09:30:00+01:00
	// SMS_RECEIVED=2025-02-28T09:45:00Z
	// SMS_PARTS=2
	// SMS_TOTAL=3
	// SMS_MISSING=2
}
