package historycmd

import (
	"bufio"
	"calq/internal/cli/base"
	"calq/internal/fsio"
	"calq/sched/history"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"
)

func pruneCommand() *cli.Command {
	return &cli.Command{
		Name:  "prune",
		Usage: "delete the jobs that finished before a time",
		Description: "Deletes the jobs that finished (done, failed, timed out or cancelled) before --before,\n" +
			"with their attempts; a batch only whole, once all its jobs ended (an interrupted\n" +
			"one keeps what it finished, for its resume). The journal deletes in one\n" +
			"transaction, PostgreSQL in short ones of whole batches. --archive first writes them to FILE\n" +
			"as JSON lines, one job a line as calq history --json prints it but without\n" +
			"message_type. An existing FILE is refused unless --append is given; then\n" +
			"the new lines follow its own. FILE appears or grows, complete and synced to\n" +
			"disk, only once the archive is written whole, and only then are the jobs\n" +
			"deleted. --dry-run counts the jobs and changes nothing.\n" +
			`With --json, prints {"message_type": "prune", "before", "jobs", "dry_run",` + "\n" +
			`"archive", "vacuumed"}.` + "\n\n" + base.WhenHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "before", Usage: "prune the jobs that finished before `TIME` (required)"},
			&cli.StringFlag{Name: "archive", Usage: "write the pruned jobs to `FILE` as JSON lines first (a new file, unless --append)"},
			&cli.BoolFlag{Name: "append", Usage: "add to the --archive FILE when it exists"},
			&cli.BoolFlag{Name: "vacuum", Usage: "compact the journal file afterwards"},
			&cli.BoolFlag{Name: "dry-run", Usage: "count the jobs only"},
			base.JSONFlag(),
			base.DBFlag(),
		},
		Action: func(c *cli.Context) error {
			p, err := pruneOptions(c)
			if err != nil {
				return err
			}
			return base.WithHistory(c, func(s history.Store) error {
				n, err := prune(c, s, p)
				if err != nil {
					return err
				}
				p.Jobs = n
				return writePrune(c.App.Writer, p, c.Bool("json"))
			})
		},
	}
}

// pruneReport is what calq history prune was asked to do and did; it is
// also its --json form.
type pruneReport struct {
	MessageType string    `json:"message_type"` // "prune"
	Before      time.Time `json:"before"`
	Jobs        int       `json:"jobs"` // pruned, or that would be on a dry run
	DryRun      bool      `json:"dry_run"`
	Archive     string    `json:"archive,omitempty"`
	Vacuumed    bool      `json:"vacuumed"`
}

func pruneOptions(c *cli.Context) (pruneReport, error) {
	p := pruneReport{MessageType: "prune", DryRun: c.Bool("dry-run"), Archive: c.String("archive")}
	p.Vacuumed = c.Bool("vacuum") && !p.DryRun
	var errs base.FlagErrors
	var err error
	if !c.IsSet("before") {
		errs.Errorf("--before is required")
	} else if p.Before, err = base.ParseWhen("before", c.String("before"), time.Now()); err != nil {
		errs.Add(err)
	}
	if c.Args().Present() {
		errs.Errorf("unexpected argument %q", c.Args().First())
	}
	switch _, err := os.Stat(p.Archive); {
	case c.Bool("append") && p.Archive == "":
		errs.Errorf("--append: only with --archive")
	case p.Archive == "":
	case base.CheckTarget("--archive", p.Archive) != nil: // a directory, device or FIFO, --append or not
		errs.Add(base.CheckTarget("--archive", p.Archive))
	case err == nil && !c.Bool("append"):
		errs.Errorf("--archive %s: exists; give --append to add to it, or another FILE", p.Archive)
	default:
		if err := base.CheckFileWritable("--archive", p.Archive); err != nil {
			errs.Add(err)
		}
	}
	if err := errs.Err(c); err != nil {
		return p, err
	}
	return p, nil
}

// prune runs p on s, writing the archive through a file that Prune puts
// in place before it deletes.
func prune(c *cli.Context, s history.Store, p pruneReport) (int, error) {
	o := history.PruneOptions{Vacuum: p.Vacuumed, DryRun: p.DryRun}
	if p.Archive != "" && !p.DryRun {
		f, err := createAtomic(p.Archive, c.Bool("append"))
		if err != nil {
			return 0, fmt.Errorf("archive: %w", err)
		}
		defer f.discard()
		o.Archive = f
	}
	return s.Prune(c.Context, p.Before, o)
}

// atomicFile is written beside its path and appears there, complete and
// synced, only when Close succeeds: a new file, or (appending) a copy of
// the old one with the new lines after it, renamed over it. A file that
// appeared at path meanwhile is never overwritten when not appending.
type atomicFile struct {
	f        *os.File
	w        *bufio.Writer
	path     string
	appendTo bool
	done     bool
}

func createAtomic(path string, appendTo bool) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	a := &atomicFile{f: f, w: bufio.NewWriter(f), path: path, appendTo: appendTo}
	if appendTo {
		if err := a.copyOld(); err != nil {
			a.discard()
			return nil, err
		}
	}
	return a, nil
}

// copyOld starts the file with the old one's content and mode, if any.
func (a *atomicFile) copyOld() error {
	old, err := os.Open(a.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer old.Close()
	if fi, err := old.Stat(); err == nil {
		a.f.Chmod(fi.Mode().Perm())
	}
	if _, err := io.Copy(a.w, old); err != nil {
		return fmt.Errorf("copy %s: %w", a.path, err)
	}
	return nil
}

func (a *atomicFile) Write(p []byte) (int, error) { return a.w.Write(p) }

// Close flushes, syncs and puts the file in place, then syncs its
// directory, so that the archive is on disk before anything is deleted.
func (a *atomicFile) Close() error {
	a.done = true
	err := errors.Join(a.w.Flush(), a.f.Sync(), a.f.Close())
	if err == nil {
		if a.appendTo {
			err = fsio.Rename(a.f.Name(), a.path)
		} else if err = os.Link(a.f.Name(), a.path); err == nil {
			os.Remove(a.f.Name())
		}
	}
	if err != nil {
		os.Remove(a.f.Name())
		return err
	}
	return fsio.SyncDir(filepath.Dir(a.path))
}

// discard removes the file unless Close has run.
func (a *atomicFile) discard() {
	if !a.done {
		a.f.Close()
		os.Remove(a.f.Name())
	}
}

func writePrune(w io.Writer, p pruneReport, asJSON bool) error {
	if asJSON {
		return base.WriteJSONLine(w, "prune", p)
	}
	msg := fmt.Sprintf("pruned %s finished before %s", base.Plural(p.Jobs, "job"), p.Before.Format(time.DateTime))
	switch {
	case p.DryRun:
		msg = "would have " + msg + " (dry run)"
	case p.Archive != "":
		msg += ", archived to " + p.Archive
	}
	if p.Vacuumed {
		msg += ", vacuumed"
	}
	_, err := fmt.Fprintln(w, msg)
	return err
}
