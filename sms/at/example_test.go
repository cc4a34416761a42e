package at_test

import (
	"bufio"
	"context"
	"fmt"
	"net"

	"calq/sms/at"
)

// A modem on the other end of a pipe: it answers AT+CMGS with the prompt and
// the PDU with message reference 7. Real code uses at.Open on a device.
func ExampleModem_SendPDU() {
	calq, modem := net.Pipe()
	go func() {
		r := bufio.NewReader(modem)
		r.ReadString('\r')          // AT+CMGS=20
		fmt.Fprint(modem, "\r\n> ") // the prompt has no line ending
		r.ReadString(0x1a)          // the PDU and Ctrl-Z
		fmt.Fprint(modem, "\r\n+CMGS: 7\r\n\r\nOK\r\n")
	}()
	m := at.New(calq, at.Options{})
	defer m.Close()

	mr, err := m.SendPDU(context.Background(), "0011000D91945111325476F80000AA05E8329BFD06", 20)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("message reference", mr)
	// Output: message reference 7
}
