package base

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
)

// FlagErrors collects what is wrong with a command's flags and
// arguments, so that one usage error names every one of them. The zero
// value is ready to use.
type FlagErrors struct{ errs []error }

// Add records errs; a nil error is nothing wrong.
func (f *FlagErrors) Add(errs ...error) {
	for _, err := range errs {
		if err != nil {
			f.errs = append(f.errs, err)
		}
	}
}

// Errorf records a problem formatted as by fmt.Errorf.
func (f *FlagErrors) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Errorf(format, args...))
}

// Failf records a problem with flag --name, formatted as by fmt.Errorf.
func (f *FlagErrors) Failf(name, format string, args ...any) {
	f.errs = append(f.errs, fmt.Errorf("--%s: "+format, append([]any{name}, args...)...))
}

// Len is the number of problems recorded.
func (f *FlagErrors) Len() int { return len(f.errs) }

// Err is a usage error of c naming every problem recorded, or nil.
func (f *FlagErrors) Err(c *cli.Context) error {
	if len(f.errs) == 0 {
		return nil
	}
	return Usagef(c, "%w", errors.Join(f.errs...))
}
