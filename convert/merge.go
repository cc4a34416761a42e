package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"calq/convert/pdf"
	"calq/internal/debris"
	"calq/internal/exitcode"
)

// merge joins the PDFs into o.Merge, in input order, then applies o.Post
// to the result; the file appears complete or not at all.
func merge(ctx context.Context, o Options, outputs []string) error {
	if len(outputs) == 0 {
		return errors.New("no PDF to merge")
	}
	dir := filepath.Dir(o.Merge)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	debris.Sweep(dir)
	f, err := os.CreateTemp(dir, debris.Pattern("part", true))
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	os.Remove(tmp) // pdfcpu writes a new file
	if err := pdf.Merge(ctx, outputs, tmp); err != nil {
		return err
	}
	if !postEmpty(o.Post) {
		if err := pdf.Apply(ctx, tmp, tmp, o.Post); err != nil {
			return fmt.Errorf("post-process: %w", err)
		}
	}
	os.Chmod(tmp, outputMode())
	return os.Rename(tmp, o.Merge)
}

// verdict is Run's error for a finished run: nil when every file is
// converted or unchanged; ErrNothingRan when LibreOffice was missing and
// nothing succeeded; ErrNoneSucceeded when nothing succeeded; else a
// partial failure. Unsupported files and hidden ones are no failures.
func (r *runner) verdict(sum Summary) error {
	if sum.Failed == 0 {
		return nil
	}
	r.mu.Lock()
	missing := r.missing
	r.mu.Unlock()
	ok := sum.Converted + sum.Skipped
	switch {
	case ok == 0 && missing != nil:
		return fmt.Errorf("%w: %w", ErrNothingRan, missing)
	case ok == 0:
		return fmt.Errorf("%w: all %d failed", ErrNoneSucceeded, sum.Failed)
	case missing != nil:
		// Say how to install it (the error carries the hint).
		return fmt.Errorf("%w: %d of %d files failed; %w", exitcode.ErrPartial, sum.Failed, sum.Total, missing)
	}
	return fmt.Errorf("%w: %d of %d files failed", exitcode.ErrPartial, sum.Failed, sum.Total)
}
