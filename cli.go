package main

// What the commands share beyond internal/cli/base: help's defaults and
// the address book. Each leaf command lives in its own cmd_*.go file.

import (
	"strings"

	"github.com/urfave/cli/v2"
)

func init() {
	// Help shows a default only when it says something: not urfave's
	// "(default: false)" of every switch, nor a zero that means "unset".
	stringer := cli.FlagStringer
	cli.FlagStringer = func(f cli.Flag) string {
		s := stringer(f)
		for _, zero := range []string{" (default: false)", " (default: 0)", " (default: 0s)", ` (default: "")`} {
			s = strings.Replace(s, zero, "", 1)
		}
		return s
	}
}
