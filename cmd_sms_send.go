package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// Placeholders; the helper "outbox" replaces this file.
func smsSendCommand() *cli.Command   { return placeholder("send") }
func smsStatusCommand() *cli.Command { return placeholder("status") }
func smsModemsCommand() *cli.Command { return placeholder("modems") }
func smsBenchCommand() *cli.Command  { return placeholder("bench") }

func placeholder(name string) *cli.Command {
	return &cli.Command{Name: name, Action: func(*cli.Context) error { return errors.New("not built yet") }}
}
