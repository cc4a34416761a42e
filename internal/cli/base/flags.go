package base

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"calq/internal/homedir"
	"calq/sched/journal"
)

// DBFlag is --db, the journal's path or the shared queue's URL;
// JournalPath reads it.
func DBFlag() cli.Flag {
	return &cli.StringFlag{Name: "db", EnvVars: []string{"CALQ_DB"},
		Usage: "the journal file `PATH` (default: $XDG_STATE_HOME/calq/calq.db, else ~/.local/state/calq/calq.db)"}
}

// JSONFlag is --json: JSON Lines on stdout, written by WriteJSONLine.
func JSONFlag() cli.Flag {
	return &cli.BoolFlag{Name: "json", Usage: "print JSON Lines: one object per line, each with a message_type"}
}

// ConfigFlag is --config, the config file of calq convert and calq sms.
func ConfigFlag() cli.Flag {
	return &cli.StringFlag{Name: "config", EnvVars: []string{"CALQ_CONFIG"}, Usage: "the config `FILE`"}
}

// JournalPath is the journal's path: --db as given to the innermost
// command that was given it (calq history --db X stats works too), else
// $CALQ_DB, else the default under $XDG_STATE_HOME or $HOME.
func JournalPath(c *cli.Context) string {
	env := os.Getenv("CALQ_DB")
	for _, ctx := range c.Lineage() {
		// urfave counts a value from the environment as set: only a value
		// unlike the environment's surely came from the command line.
		if slices.Contains(ctx.LocalFlagNames(), "db") && ctx.String("db") != env {
			return ctx.String("db")
		}
	}
	if env != "" {
		return env
	}
	return DefaultJournalPath()
}

// DefaultJournalPath is the journal's path when --db and $CALQ_DB name
// none (or name the shared database, beside which this machine keeps its
// own journal).
// It is "" when there is no home directory to put it under (see
// homedir.Dir), never a path relative to the current directory:
// journal.Open refuses "" with a hint.
func DefaultJournalPath() string {
	xdg := os.Getenv("XDG_STATE_HOME")
	home, err := homedir.Dir()
	if err != nil && !filepath.IsAbs(xdg) {
		return ""
	}
	return journal.DefaultPath(xdg, home)
}

// StateDir is the directory of DefaultJournalPath, where this machine
// keeps its own state (such as its journal of a shared database); "" when
// there is no home directory.
func StateDir() string {
	def := DefaultJournalPath()
	if def == "" {
		return ""
	}
	return filepath.Dir(def)
}
