package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"calq/convert/pdf"
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
	tmp, err := tempPath(dir, filepath.Base(o.Merge))
	if err != nil {
		return err
	}
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
	return os.Rename(tmp, o.Merge)
}

// verdict is Run's error for a finished run: nil when every file is
// converted or skipped; ErrNothingRan when LibreOffice was missing and
// nothing was converted; else a partial failure.
func (r *runner) verdict(sum Summary) error {
	if sum.Failed == 0 {
		return nil
	}
	r.mu.Lock()
	missing := r.missing
	r.mu.Unlock()
	if missing != nil && sum.Converted+sum.Skipped == 0 {
		return fmt.Errorf("%w: %w", ErrNothingRan, missing)
	}
	if missing != nil {
		// Say how to install it (the error carries the hint).
		return fmt.Errorf("%w: %d of %d files failed; %w", exitcode.ErrPartial, sum.Failed, sum.Total, missing)
	}
	return fmt.Errorf("%w: %d of %d files failed", exitcode.ErrPartial, sum.Failed, sum.Total)
}
