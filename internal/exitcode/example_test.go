package exitcode_test

import (
	"errors"
	"fmt"

	"calq/internal/exitcode"
)

func Example() {
	failed := []error{errors.New("b.docx: not a document")}
	err := fmt.Errorf("convert: %w", errors.Join(
		fmt.Errorf("%w: %d of %d files failed", exitcode.ErrPartial, len(failed), 3),
		errors.Join(failed...),
	))
	fmt.Println(errors.Is(err, exitcode.ErrPartial))
	// Output: true
}
