package pdu_test

import (
	"fmt"
	"time"

	"calq/sms/pdu"
)

func ExampleEncodeSubmit() {
	parts, _, err := pdu.EncodeSubmit("+27820001111", "Hello World!", pdu.SubmitOptions{})
	if err != nil {
		panic(err)
	}
	for _, p := range parts {
		fmt.Printf("AT+CMGS=%d\n%s\n", p.TPDULength, p.Hex)
	}
	// Output:
	// AT+CMGS=24
	// 0001000B917228001011F100000CC8329BFD065DDF72363904
}

func ExampleEncodeSubmit_long() {
	text := "The € costs two septets; a long text is split into parts of 153 septets, " +
		"each with a concatenation header, and never inside an escape pair or a surrogate pair. " +
		"Every part goes out with the same reference, through the same modem."
	parts, _, err := pdu.EncodeSubmit("+4915112345678", text, pdu.SubmitOptions{Ref: 7, Report: true, Validity: 24 * time.Hour})
	if err != nil {
		panic(err)
	}
	for _, p := range parts {
		m, _ := pdu.Decode(p.Hex, pdu.MO)
		fmt.Printf("%d/%d ref %d, AT+CMGS=%d: %q\n", p.Seq, p.Total, m.Concat.Ref, p.TPDULength, m.Text)
	}
	// Output:
	// 1/2 ref 7, AT+CMGS=155: "The € costs two septets; a long text is split into parts of 153 septets, each with a concatenation header, and never inside an escape pair or a surrogat"
	// 2/2 ref 7, AT+CMGS=88: "e pair. Every part goes out with the same reference, through the same modem."
}

func ExampleDecode() {
	m, err := pdu.Decode("07914306073011F006270B913426565711F7012081111345400120811174054043", pdu.MT)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Type, m.MR, m.RA, m.ST, m.DT.Format(pdu.TimeLayout))
	_, err = pdu.Decode("0001000B9172", pdu.MO)
	fmt.Println(err)
	// Output:
	// STATUS-REPORT 39 +43626575117 67 2010-02-18T11:47:50+01:00
	// pdu: da at octet 5: PDU ends too early: 6 more octets needed, 1 left
}

func ExampleEncodeStatusReport() {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	h, err := pdu.EncodeStatusReport(pdu.StatusReport{SMSC: "+491710760000", MR: 7,
		RA: pdu.Address{Number: "+4915112345678", TOA: pdu.TOAInternational}, SCTS: at, DT: at.Add(2 * time.Second)})
	if err != nil {
		panic(err)
	}
	m, _ := pdu.Decode(h, pdu.MT)
	fmt.Println(h)
	fmt.Println(m.Type, m.MR, m.RA, m.ST, m.DT.Format(time.RFC3339))
	// Output:
	// 079194710167000006070D91945111325476F8523010210000005230102100200000
	// STATUS-REPORT 7 +4915112345678 0 2025-03-01T12:00:02Z
}
