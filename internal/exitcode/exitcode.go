// Package exitcode holds the errors that calq's packages return when the
// command line must exit with a status other than plain failure.
//
// Batch operations (convert many files, send many messages) return an error
// that wraps [ErrPartial] when some items failed and others succeeded; the
// CLI maps it to exit status 3. The package has no state and is safe for
// concurrent use.
package exitcode

import "errors"

// ErrPartial marks a batch in which some items failed and the others
// succeeded. Wrap it with the details, for example
//
//	fmt.Errorf("%w: 2 of 10 files failed", exitcode.ErrPartial)
//
// or join it with the items' errors: errors.Join(exitcode.ErrPartial, errs...).
var ErrPartial = errors.New("partial failure")
