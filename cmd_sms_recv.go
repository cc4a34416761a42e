package main

import "github.com/urfave/cli/v2"

// Placeholder; the helper "inbox" replaces this file.
func smsRecvCommand() *cli.Command { return placeholder("recv") }
