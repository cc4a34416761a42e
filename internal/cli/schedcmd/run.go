package schedcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/childenv"
	"calq/internal/cli/base"
	"calq/internal/dburl"
	"calq/internal/fsio"
	"calq/sched"
	"calq/sched/journal"
	"calq/sched/shell"
)

func runCommand() *cli.Command { return newRunCommand(runRun) }

// runOpts is what the flags and arguments of calq sched run ask for.
type runOpts struct {
	shell.RunOptions
	DB         string // --db: the journal's path, or the shared queue's URL
	Shared     bool   // DB is a postgres:// URL: the jobs go to the shared queue
	UseJournal bool   // --journal: record the jobs in the journal at DB
	JSON       bool   // --json
	Quiet      bool   // --quiet
}

// newRunCommand is calq sched run, whose Action reads its flags and
// arguments and hands them to runF: runRun, or a test's capture.
func newRunCommand(runF func(*cli.Context, runOpts) error) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run shell commands as jobs, in parallel, with retries and timeouts",
		ArgsUsage: "[FILE... | - | -- COMMAND [ARG...]]",
		Description: "Runs each line of each job FILE (of stdin, with - or no FILE) as a job: a shell\n" +
			"command line run by /bin/sh -c, --jobs at a time, in priority order, retried\n" +
			"with exponential backoff (2s, 4s, 8s... ±20%) when it fails, killed with its\n" +
			"whole process group past --timeout. Blank lines and # comments are skipped.\n" +
			"With -- the rest of the command line is one job. A FILE is never run itself: a\n" +
			"script (#!) or a binary is refused; run a script with calq sched run -- FILE.\n\n" +
			"Each job's output is printed whole when it ends (like GNU parallel --group).\n" +
			"Progress goes to stderr: a bar on a terminal, one line per job otherwise.\n" +
			"With --json, stdout carries one JSON object per event, each with a\n" +
			`"message_type" of "job" or "summary" (see the README).` + "\n\n" +
			"With --journal the jobs are recorded in the journal (--db), so calq history\n" +
			"shows them; a re-run of an unfinished batch (same --label and lines) resumes\n" +
			"it, and two overlapping runs of it share the jobs, each running once.\n\n" +
			"With a postgres:// --db the lines go to the shared queue that calq worker\n" +
			"processes serve (kind shell), and calq waits, printing each job's output as\n" +
			"its worker records it; -j 0 only submits (and fails at once when no live worker\n" +
			"runs shell jobs), -j N also runs N of them here. Interrupted, it stops waiting:\n" +
			"the jobs stay queued for the workers. The same command again waits for the\n" +
			"rest and prints every recorded output, also once all have ended: nothing runs\n" +
			"twice. --force runs the lines again, as a new batch.\n\n" +
			"The first SIGINT or SIGTERM stops starting jobs and stops the running ones\n" +
			"(SIGTERM, then SIGKILL after --grace); a second one exits at once.",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "how many jobs run at once"},
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "P2", Usage: "priority class: P0 (realtime) .. P3 (background)"},
			&cli.IntFlag{Name: "retries", Value: sched.DefaultRetries, Usage: "retries of a failed or timed-out job"},
			&cli.DurationFlag{Name: "timeout", Usage: "per attempt, e.g. 30s or 5m; 0 means none"},
			&cli.StringFlag{Name: "at", Usage: "start no earlier than TIME: 15:04, '2006-01-02 15:04', RFC 3339, or +10m"},
			&cli.StringFlag{Name: "label", Usage: "name of the batch in the journal and calq history (with --journal)"},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Second, Usage: "how long a stopped job gets between SIGTERM and SIGKILL"},
			&cli.StringFlag{Name: "shell", Value: "/bin/sh", Usage: "the shell that runs each line"},
			&cli.BoolFlag{Name: "journal", Usage: "record the jobs in the journal (see --db)"},
			&cli.BoolFlag{Name: "force", Usage: "run the lines as a new batch, even when the same batch is recorded (with --journal or a postgres:// --db)"},
			&cli.StringFlag{Name: "metrics-file", EnvVars: []string{"CALQ_METRICS_FILE"}, Usage: "write Prometheus metrics to `FILE` (textfile collector format)"},
			base.JSONFlag(),
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
		}, base.DBFlag()),
		Action: func(c *cli.Context) error {
			o, err := runOptions(c)
			if err != nil {
				return err
			}
			return runF(c, o)
		},
	}
}

// runRun runs the jobs o names, here or through the shared queue, and
// renders their events, outputs and summary.
func runRun(c *cli.Context, o runOpts) error {
	out := newRunRenderer(c.App.Writer, c.App.ErrWriter, o.JSON, o.Quiet, len(o.Commands))
	o.Events, o.Output = out.event, out.output
	if o.Shared {
		return runShared(c, o.DB, o.RunOptions, out)
	}
	if o.UseJournal {
		jn, err := journal.Open(c.Context, o.DB, journal.Options{})
		if err != nil {
			return err
		}
		defer jn.Close()
		o.Journal = jn
	}
	res, err := shell.RunCommands(c.Context, o.RunOptions)
	out.finish(res)
	if err != nil {
		return fmt.Errorf("sched run: %w", err)
	}
	return nil
}

// runOptions reads and checks the flags and arguments of calq sched run.
func runOptions(c *cli.Context) (runOpts, error) {
	db := base.JournalPath(c)
	o := runOpts{
		RunOptions: shell.RunOptions{Workers: c.Int("jobs"), Retries: c.Int("retries"), Timeout: c.Duration("timeout"),
			Label: c.String("label"), Force: c.Bool("force"), Grace: c.Duration("grace"), Shell: c.String("shell"),
			MetricsFile: c.String("metrics-file"), Env: childenv.Without(os.Environ()), Warn: base.WarnTo(c.App.ErrWriter)},
		DB: db, Shared: dburl.IsPostgres(db), UseJournal: c.Bool("journal"), JSON: c.Bool("json"), Quiet: c.Bool("quiet"),
	}
	if err := o.checkFlags(c); err != nil {
		return o, err
	}
	if o.MetricsFile != "" {
		o.Metrics = sched.NewMetrics()
	}
	var err error
	o.Commands, err = runCommands(c)
	if err != nil {
		return o, err
	}
	if len(o.Commands) == 0 {
		return o, base.Usagef(c, "no commands to run (the input has only blank lines or comments)")
	}
	// Checked once the jobs are read, so that what is wrong with them
	// is told first.
	if o.Shared && o.MetricsFile != "" {
		return o, base.Usagef(c, "--metrics-file: not with a postgres:// --db (the workers run the jobs)")
	}
	return o, nil
}

// checkFlags reads --priority and --at into o and checks every flag,
// naming every problem in one usage error.
func (o *runOpts) checkFlags(c *cli.Context) error {
	var errs base.FlagErrors
	var err error
	if o.Class, err = sched.ParseClass(c.String("priority")); err != nil {
		errs.Errorf("--priority: %w", err)
	}
	if o.Workers < 1 && !(o.Shared && o.Workers == 0) {
		errs.Errorf("--jobs: %d, want at least 1 (0, only submitting, needs a postgres:// --db)", o.Workers)
	}
	if o.Retries < 0 {
		errs.Errorf("--retries: %d is negative", o.Retries)
	}
	if o.Timeout < 0 || o.Grace < 0 {
		errs.Errorf("--timeout and --grace must not be negative")
	}
	if at := c.String("at"); at != "" {
		if o.At, err = base.ParseAt(at, time.Now()); err != nil {
			errs.Errorf("--at: %w", err)
		}
	}
	if c.IsSet("label") && !o.UseJournal && !o.Shared {
		errs.Errorf("--label: only with --journal (the label names the batch in the journal)")
	} else if err := base.CheckText("--label", o.Label); err != nil {
		errs.Add(err)
	}
	if o.Force && !o.UseJournal && !o.Shared {
		errs.Errorf("--force: only with --journal or a postgres:// --db (without a record every line runs anyway)")
	}
	if !o.Shared {
		// Here they are this machine's; with the shared queue, the
		// workers' (and --metrics-file is refused by runOptions).
		if err := base.CheckProgram("--shell", o.Shell); err != nil {
			errs.Add(err)
		}
		if o.MetricsFile != "" {
			if err := base.CheckFileWritable("--metrics-file", o.MetricsFile); err != nil {
				errs.Add(err)
			}
		}
	}
	return errs.Err(c)
}

// runCommands reads the jobs: the words after --, as one command line,
// or the lines of each job FILE ("-" or none: stdin). Every file is read
// before any job runs; what cannot be read is a usage error.
func runCommands(c *cli.Context) ([]string, error) {
	files := c.Args().Slice()
	if after, dash := base.ArgsAfterDash(c); dash {
		files = files[:len(files)-len(after)]
		switch {
		case len(after) == 0:
			return nil, base.Usagef(c, "--: no COMMAND after it")
		case len(files) > 0:
			return nil, base.Usagef(c, "give job files or -- COMMAND, not both (%s before --)", shell.Quote(files[0]))
		case strings.TrimSpace(strings.Join(after, "")) == "":
			return nil, base.Usagef(c, "--: the COMMAND is empty")
		}
		line := shellJoin(after)
		if err := shell.CheckLine(line); err != nil {
			return nil, base.Usagef(c, "--: %w", err)
		}
		return []string{line}, nil
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	var cmds []string
	var errs base.FlagErrors
	stdin := false
	for _, name := range files {
		if name == "-" && stdin {
			errs.Errorf("-: standard input given twice")
			continue
		}
		stdin = stdin || name == "-"
		got, err := readJobFile(c, name)
		if err != nil && c.Context.Err() != nil {
			return nil, err // interrupted while waiting for a FIFO: 130, not a usage error
		}
		if err != nil {
			errs.Add(err)
		}
		cmds = append(cmds, got...)
	}
	if err := errs.Err(c); err != nil {
		return nil, err
	}
	return cmds, nil
}

// fifoNotice is how long the open of a job file (a FIFO without a writer)
// goes before calq says it waits.
const fifoNotice = time.Second

// readJobFile reads the command lines of the job file name ("-": stdin).
// A file that is not text, or that is a script (#!), is refused: its
// lines are not command lines.
func readJobFile(c *cli.Context, name string) ([]string, error) {
	var r io.Reader = c.App.Reader
	label := "standard input"
	if name != "-" {
		label = "job file " + shell.Quote(name)
		// A FIFO waits for its writer, as with cat, until SIGINT/SIGTERM:
		// once that takes a while, say so, or calq looks hung (a pipe
		// from <(gen) has its writer: nothing is said).
		quiet, noticed := c.Bool("quiet"), make(chan struct{})
		notice := time.AfterFunc(fifoNotice, func() {
			defer close(noticed)
			if !quiet {
				fmt.Fprintf(c.App.ErrWriter, "calq: %s: waiting for a writer\n", label)
			}
		})
		f, err := fsio.Open(c.Context, name)
		if !notice.Stop() {
			<-noticed // said, or saying it: let it finish its line
		}
		if err != nil && c.Context.Err() != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s: is a directory", label)
		}
		defer context.AfterFunc(c.Context, func() { f.Close() })() // a FIFO's writer may never end
		r = f
	}
	b, err := readAll(c.Context, r, maxJobFile+1)
	b = bytes.TrimPrefix(b, []byte("\uFEFF")) // an editor's byte order mark
	switch {
	case err != nil && c.Context.Err() != nil:
		return nil, fmt.Errorf("%s: %w", label, c.Context.Err())
	case err != nil:
		return nil, fmt.Errorf("%s: %w", label, err)
	case len(b) > maxJobFile:
		return nil, fmt.Errorf("%s: larger than %d MiB", label, maxJobFile>>20)
	case bytes.IndexByte(b, 0) >= 0:
		// No command line holds a NUL; a binary does. Bytes that are
		// not UTF-8 (a Latin-1 file name) are a shell's business: they
		// run as written.
		return nil, fmt.Errorf("%s: not a text file of command lines", label)
	case bytes.HasPrefix(b, []byte("#!")):
		return nil, fmt.Errorf("%s: is a script (#!), not a list of command lines; to run it as one job: calq sched run -- %s", label, shell.Quote(name))
	}
	cmds, err := shell.ReadCommands(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	return cmds, nil
}

// readAll reads r to its end or limit bytes, and returns ctx's error
// when ctx ends first. Standard input that is a pipe whose writer never
// ends cannot be closed to wake a read: the read is left to its goroutine,
// which the command's exit ends (a job file is closed by readJobFile).
func readAll(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, limit))
		done <- read{b, err}
	}()
	select {
	case d := <-done:
		return d.b, d.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// maxJobFile bounds a job file: a million jobs of 64 bytes.
const maxJobFile = 64 << 20

// shellJoin quotes words so that sh -c runs them as they were given.
func shellJoin(words []string) string {
	if len(words) == 1 {
		return words[0] // one word is taken as a command line, like sh -c
	}
	return shell.Join(words)
}

// runShared runs calq sched run's jobs through the shared queue at url,
// whose workers run them.
func runShared(c *cli.Context, url string, o shell.RunOptions, out *runRenderer) error {
	q, err := base.OpenSubmitQueue(c, url)
	if err != nil {
		return fmt.Errorf("sched run: %w", err)
	}
	defer q.Close()
	res, err := shell.RunShared(c.Context, q, o)
	if res.Batch != "" {
		out.finish(res) // else nothing was submitted (no live worker): no summary of nothing
	}
	if err != nil {
		if c.Context.Err() != nil && res.Batch != "" {
			fmt.Fprintf(c.App.ErrWriter, "calq: stopped waiting; the open jobs of batch %s stay queued for the workers\n", res.Batch)
			fmt.Fprintln(c.App.ErrWriter, "calq: hint: run the same command again to wait for them and print their outputs; --force runs the lines again")
		}
		return fmt.Errorf("sched run: %w", err)
	}
	return nil
}
