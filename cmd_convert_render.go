package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"calq/convert"
)

// convertRenderer shows calq convert's progress: JSON lines on stdout
// (--json), a progress bar on a terminal, or a line per finished file on
// stderr (cron); failures are always said on stderr unless --json.
type convertRenderer struct {
	mu     sync.Mutex
	stdout io.Writer
	stderr io.Writer
	enc    *json.Encoder
	quiet  bool
	bar    *progressbar.ProgressBar
	total  int
	done   int
	began  bool // planned was called: there is a run to sum up
}

func newConvertRenderer(stdout, stderr io.Writer, asJSON, quiet bool) *convertRenderer {
	r := &convertRenderer{stdout: stdout, stderr: stderr, quiet: quiet}
	if asJSON {
		r.enc = json.NewEncoder(stdout)
	}
	return r
}

// planned starts the bar once the number of files is known.
func (r *convertRenderer) planned(total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total, r.began = total, true
	if r.enc == nil && !r.quiet && isTerminal(r.stderr) && total > 0 {
		r.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(r.stderr),
			progressbar.OptionSetDescription("converting"), progressbar.OptionShowCount(),
			progressbar.OptionShowIts(), progressbar.OptionSetItsString("files"),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
}

// progress reports one file's outcome.
func (r *convertRenderer) progress(f convert.FileResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.State != convert.StateRetry {
		r.done++
	}
	if r.enc != nil {
		_ = r.enc.Encode(f)
		return
	}
	line := r.describe(f)
	bad := f.State != convert.StateConverted && f.State != convert.StateSkipped
	switch {
	case r.bar != nil:
		if bad {
			_ = r.bar.Clear()
			fmt.Fprintln(r.stderr, line)
		}
		if f.State != convert.StateRetry {
			_ = r.bar.Add(1)
		}
	case !r.quiet || bad:
		fmt.Fprintln(r.stderr, line)
	}
}

func (r *convertRenderer) describe(f convert.FileResult) string {
	switch f.State {
	case convert.StateConverted:
		return fmt.Sprintf("calq: converted [%d/%d] %s -> %s (%.1fs, %s)", r.done, r.total, f.Input, f.Output, f.Seconds, f.Backend)
	case convert.StateSkipped:
		return fmt.Sprintf("calq: skipped [%d/%d] %s: unchanged since it was converted to %s", r.done, r.total, f.Input, f.Output)
	case convert.StateRetry:
		return fmt.Sprintf("calq: retrying %s: %s", f.Input, f.Reason)
	}
	return fmt.Sprintf("calq: %s [%d/%d] %s: %s", f.State, r.done, r.total, f.Input, f.Reason)
}

// finish prints the summary: a JSON line, or a line on stderr.
func (r *convertRenderer) finish(s convert.Summary) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.began {
		return
	}
	if r.bar != nil {
		_ = r.bar.Finish()
	}
	if r.enc != nil {
		s.Type = "summary"
		_ = r.enc.Encode(s)
		return
	}
	if r.quiet && s.Failed == 0 {
		return
	}
	line := fmt.Sprintf("calq: %s: %d converted, %d skipped, %d failed in %.1fs",
		plural(s.Total, "file"), s.Converted, s.Skipped, s.Failed, s.Seconds)
	if s.Merged != "" {
		line += "; merged into " + s.Merged
	}
	fmt.Fprintln(r.stderr, line)
}
