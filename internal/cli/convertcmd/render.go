package convertcmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"calq/convert"
	"calq/convert/mail"
	"calq/internal/cli/base"
)

// convertRenderer shows calq convert's progress: JSON lines on stdout
// (--json), a progress bar on a terminal, or a line per finished file on
// stderr (cron); failures are always said on stderr unless --json.
// Names are quoted where they hold control characters or bytes that are
// not UTF-8, so that no name can forge a line.
type convertRenderer struct {
	mu     sync.Mutex
	stdout io.Writer
	stderr io.Writer
	json   bool
	quiet  bool
	bar    *progressbar.ProgressBar
	total  int
	pre    int // results decided before any conversion; they come first
	done   int
	began  bool // planned was called: there is a run to sum up
	// retries is --retries; permanent counts the files that failed in a
	// way no retry changes: the summary says once that they were not
	// retried, not every line.
	retries, permanent int
}

func newConvertRenderer(stdout, stderr io.Writer, asJSON, quiet bool) *convertRenderer {
	return &convertRenderer{stdout: stdout, stderr: stderr, quiet: quiet, json: asJSON}
}

// planned starts the bar, over the files that need converting, once
// their number is known: unchanged files do not inflate its rate.
func (r *convertRenderer) planned(total, toConvert int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total, r.pre, r.began = total, total-toConvert, true
	if !r.json && !r.quiet && base.IsTerminal(r.stderr) && toConvert > 0 {
		r.bar = progressbar.NewOptions(toConvert, progressbar.OptionSetWriter(r.stderr),
			progressbar.OptionSetDescription("converting"), progressbar.OptionShowCount(),
			progressbar.OptionShowIts(), progressbar.OptionSetItsString("files"),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		_ = r.bar.RenderBlank()
	}
}

// status says what the run is doing, on a terminal only: cron logs need
// no "starting" lines.
func (r *convertRenderer) status(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.json || r.quiet || !base.IsTerminal(r.stderr) {
		return
	}
	r.above("calq: " + msg)
}

// above prints line on stderr, above the bar when there is one.
func (r *convertRenderer) above(line string) {
	if r.bar != nil {
		_ = r.bar.Clear()
	}
	fmt.Fprintln(r.stderr, line)
	if r.bar != nil {
		_ = r.bar.RenderBlank()
	}
}

// progress reports one file's outcome.
func (r *convertRenderer) progress(f convert.FileResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.State != convert.StateRetry {
		r.done++
	}
	if f.Permanent {
		r.permanent++
	}
	if r.json {
		_ = base.WriteJSONLine(r.stdout, "file", f)
		return
	}
	if f.State == convert.StateCancelled {
		return // the summary says how many, with the one cause
	}
	bad := f.State == convert.StateFailed || f.State == convert.StateTimedOut || f.State == convert.StateRetry
	switch {
	case r.bar != nil:
		if bad || f.Note != "" {
			r.above(r.describe(f))
		}
		if f.State != convert.StateRetry && r.done > r.pre {
			_ = r.bar.Add(1)
		}
	case !r.quiet || bad:
		fmt.Fprintln(r.stderr, r.describe(f))
	}
}

func (r *convertRenderer) describe(f convert.FileResult) string {
	in, out := base.QuoteName(f.Input), base.QuoteName(f.Output)
	var line string
	switch f.State {
	case convert.StateConverted:
		line = fmt.Sprintf("calq: converted [%d/%d] %s -> %s (%.1fs, %s)", r.done, r.total, in, out, f.Seconds, f.Backend)
	case convert.StateSkipped:
		line = fmt.Sprintf("calq: skipped [%d/%d] %s: %s", r.done, r.total, in, base.SafeText(f.Reason))
	case convert.StateRetry:
		line = fmt.Sprintf("calq: retrying %s: %s", in, base.SafeText(f.Reason))
	default:
		line = fmt.Sprintf("calq: %s [%d/%d] %s: %s", strings.ReplaceAll(f.State, "_", " "), r.done, r.total, in, base.SafeText(f.Reason))
	}
	if f.Note != "" {
		line += " (" + base.SafeText(f.Note) + ")"
	}
	return line
}

// mail reports a mail's outcome.
func (r *convertRenderer) mail(m mail.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.json {
		_ = base.WriteJSONLine(r.stdout, "mail", m)
		return
	}
	switch m.State {
	case "sent":
		fmt.Fprintf(r.stderr, "calq: mailed %s to %s\n", base.Plural(len(m.Attachments), "PDF"), strings.Join(m.To, ", "))
	case "not_sent":
		if !r.quiet {
			fmt.Fprintf(r.stderr, "calq: mailed nothing: %s\n", m.Reason)
		}
	}
}

// finish prints the summary: a JSON line, or lines on stderr.
func (r *convertRenderer) finish(s convert.Summary) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.began {
		return
	}
	if r.bar != nil {
		_ = r.bar.Finish()
	}
	if r.json {
		_ = base.WriteJSONLine(r.stdout, "summary", s)
		return
	}
	for _, in := range s.Empty {
		fmt.Fprintf(r.stderr, "calq: %s: nothing to convert there\n", base.QuoteName(in))
	}
	for _, d := range s.Duplicates {
		how := "the same input as"
		if !d.Same {
			how = "already part of"
		}
		fmt.Fprintf(r.stderr, "calq: %s: %s %s; converted once\n", base.QuoteName(d.Input), how, base.QuoteName(d.Of))
	}
	if len(s.Orphans) > 0 && !r.quiet {
		fmt.Fprintf(r.stderr, "calq: %s whose input is gone (kept, not deleted):\n", base.Plural(len(s.Orphans), "PDF"))
		for _, o := range s.Orphans {
			fmt.Fprintf(r.stderr, "calq:   %s\n", base.QuoteName(o))
		}
	}
	if r.quiet && s.Failed == 0 && s.Cancelled == 0 {
		return
	}
	fmt.Fprintln(r.stderr, summaryLine(s))
	if r.permanent > 0 && r.retries > 0 {
		fmt.Fprintf(r.stderr, "calq: not retried: %s would fail the same way again (--retries %d)\n",
			base.Plural(r.permanent, "file"), r.retries)
	}
}

// summaryLine is the human summary; counts that are zero and rare are
// left out.
func summaryLine(s convert.Summary) string {
	line := fmt.Sprintf("calq: %s: %d converted, %d skipped, %d failed", base.Plural(s.Total, "file"), s.Converted, s.Skipped, s.Failed)
	for _, c := range []struct {
		n    int
		what string
	}{{s.Cancelled, "cancelled"}, {s.Unsupported, "unsupported"}, {s.Hidden, "hidden"}} {
		if c.n > 0 {
			line += fmt.Sprintf(", %d %s", c.n, c.what)
		}
	}
	line += fmt.Sprintf(" in %.1fs", s.Seconds)
	if s.Merged != "" {
		line += "; merged into " + base.QuoteName(s.Merged)
	}
	return line
}
