package convert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"calq/convert/pdfpool"
	"calq/internal/debris"
	"calq/internal/exitcode"
	"calq/internal/fsio"
)

// A merged PDF has a provenance record like any other: its input is the
// set of the run's roots (mergeOf), its input digest that of the list of
// PDFs merged, its options those of the post-processing it got. So a
// merged file belongs to one set of inputs, as a PDF belongs to one
// input, and is merged again when what went into it changed.

// mergeOf is the input of a merge's record: the roots' real paths,
// sorted, each after a NUL, which no path holds; so it never names a
// file.
func mergeOf(roots []string) string {
	s := slices.Clone(roots)
	slices.Sort(s)
	return "\x00" + strings.Join(s, "\x00")
}

// ownerName is a record's input for a message.
func ownerName(input string) string {
	if rest, ok := strings.CutPrefix(input, "\x00"); ok {
		return "the merge of " + strings.ReplaceAll(rest, "\x00", ", ")
	}
	return "the PDF of " + input
}

// checkMerge refuses, before any conversion, a --merge target that is
// one of the per-file PDFs (ErrUsage), or a file there that calq did not
// merge from these inputs, unless Overwrite.
func (r *runner) checkMerge(ctx context.Context) error {
	if r.o.Merge == "" {
		return nil
	}
	target, err := filepath.Abs(r.o.Merge)
	if err != nil {
		return fmt.Errorf("--merge %s: %w", r.o.Merge, err)
	}
	r.mergeTarget = target
	dirs := map[string]string{}
	real := realOutput(target, dirs)
	for _, it := range r.items {
		if it.Output != "" && strings.EqualFold(realOutput(it.Output, dirs), real) {
			return usagef("--merge %s is also the PDF of %s; choose another --merge", r.o.Merge, it.Input)
		}
	}
	fi, err := os.Lstat(target)
	switch {
	case errors.Is(err, os.ErrNotExist) || r.o.Overwrite:
		return nil
	case err != nil:
		return fmt.Errorf("--merge %s: %w", r.o.Merge, unwrapPath(err))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("--merge %s: the file there is %s; calq replaces only regular files", r.o.Merge, modeKind(fi.Mode()))
	}
	sum, err := fileSum(ctx, target)
	if err != nil {
		return fmt.Errorf("--merge %s: %w", r.o.Merge, unwrapPath(err))
	}
	rec, ok, err := r.o.Store.Record(ctx, target)
	switch {
	case err != nil:
		return err
	case !ours(rec, ok, sum):
		return fmt.Errorf("--merge: %s", overwriteReason(target, ok))
	case rec.Input != mergeOf(r.plan.Roots):
		return fmt.Errorf("--merge: %s", otherInputReason(target, rec.Input, strings.Join(r.plan.Roots, ", ")))
	}
	return nil
}

// mergeAll merges the run's PDFs into o.Merge when what went into it
// changed: a PDF new, one more or fewer, other options, or no merged file
// of its own there.
func (r *runner) mergeAll(ctx context.Context, sum Summary) (bool, error) {
	if r.o.Merge == "" || len(sum.Outputs) == 0 {
		return false, nil
	}
	salt, err := r.o.Store.Salt(ctx)
	if err != nil {
		return false, err
	}
	o := r.o
	o.Merge = "" // the merged file's options are the post-processing
	opts, err := fingerprint(ctx, o, salt)
	if err != nil {
		return false, err
	}
	h := sha256.New()
	for _, p := range sum.Outputs {
		fmt.Fprintf(h, "%s\x00", p)
	}
	rec := Record{Output: r.mergeTarget, Input: mergeOf(r.plan.Roots), InputSum: hex.EncodeToString(h.Sum(nil)),
		Options: opts, Converted: time.Now()}
	old, ok, err := r.o.Store.Record(ctx, rec.Output)
	if err != nil {
		return false, err
	}
	if cur, err := fileSum(ctx, rec.Output); err == nil && ok && len(sum.New) == 0 && !r.o.Force &&
		old.PendingSum == "" && old.OutputSum == cur && old.Input == rec.Input && old.InputSum == rec.InputSum &&
		old.Options == rec.Options {
		return false, nil
	}
	err = merge(ctx, r.o, r.pdf, sum.Outputs, func(tmp string) error {
		s, err := fileSum(ctx, tmp)
		if err != nil {
			return fmt.Errorf("digest the merged PDF: %w", err)
		}
		rec.PendingSum = s
		return r.o.Store.Pending(ctx, rec)
	})
	if err != nil {
		return false, err
	}
	return true, r.o.Store.Placed(context.WithoutCancel(ctx), rec.Output)
}

// merge joins the PDFs into o.Merge, in input order, then applies o.Post
// to the result, on pool; the file appears complete or not at all.
// pending is called with the finished temporary file just before it is
// renamed. Each step may take the time of its inputs' files: Timeout
// each, or by default their sizes' (see timeout).
func merge(ctx context.Context, o Options, pool *pdfpool.Pool, outputs []string, pending func(tmp string) error) error {
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
	limit := FilesTimeout(o.Timeout, outputs...)
	if err := pool.Merge(ctx, limit, outputs, tmp); err != nil {
		return err
	}
	if !o.Post.Empty() {
		if err := pool.Apply(ctx, limit, tmp, tmp, o.Post); err != nil {
			return fmt.Errorf("post-process: %w", err)
		}
	}
	os.Chmod(tmp, outputMode())
	if err := pending(tmp); err != nil {
		return err
	}
	return fsio.Rename(tmp, o.Merge)
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
