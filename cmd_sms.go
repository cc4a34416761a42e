package main

import (
	"github.com/urfave/cli/v2"
)

func smsCommand() *cli.Command {
	return &cli.Command{
		Name:  "sms",
		Usage: "SMS through GSM modems: send, receive, decode and encode PDUs, emulate modems",
		Subcommands: []*cli.Command{
			smsSendCommand(),
			smsStatusCommand(),
			smsRecvCommand(),
			smsDaemonCommand(),
			smsModemsCommand(),
			smsBenchCommand(),
			smsDecodeCommand(),
			smsEncodeCommand(),
			smsEmulateCommand(),
		},
	}
}
