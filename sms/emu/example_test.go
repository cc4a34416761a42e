package emu_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"

	"calq/sms/emu"
)

func ExampleStart() {
	e, err := emu.Start(context.Background(), emu.Options{Modems: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	// Any serial client works; a plain open suffices for a pseudo-terminal.
	f, err := os.OpenFile(e.Devices()[0], os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	f.WriteString("AT+CSQ\r")
	reply := make([]byte, len("AT+CSQ\r\r\n+CSQ: 20,99\r\n\r\nOK\r\n"))
	io.ReadFull(f, reply)
	fmt.Printf("%q\n", reply)
	// Output: "AT+CSQ\r\r\n+CSQ: 20,99\r\n\r\nOK\r\n"
}
