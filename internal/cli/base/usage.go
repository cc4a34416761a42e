package base

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
)

// UsageError is a command line the user must fix; it exits with status 2.
type UsageError struct {
	Err  error
	Help string // the hint line: what to run or change
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }
func (e *UsageError) Hint() string  { return e.Help }

// Hinted is a check's error with a hint more precise than the command's
// usage, which Usagef puts first.
type Hinted struct {
	Err  error
	Help string
}

func (e *Hinted) Error() string { return e.Err.Error() }
func (e *Hinted) Unwrap() error { return e.Err }
func (e *Hinted) Hint() string  { return e.Help }

// Usagef is a usage error of the command c runs, formatted as by
// fmt.Errorf; its hint points at the command's --help, after the hint of
// any *Hinted it wraps.
func Usagef(c *cli.Context, format string, args ...any) error {
	err, hint := fmt.Errorf(format, args...), HelpHint(c)
	var h *Hinted
	if errors.As(err, &h) {
		hint = h.Help + "; " + hint
	}
	return &UsageError{Err: err, Help: hint}
}

// HelpHint is the hint of a usage error of the command c runs.
func HelpHint(c *cli.Context) string {
	return fmt.Sprintf("run '%s --help' for usage", c.Command.HelpName)
}
