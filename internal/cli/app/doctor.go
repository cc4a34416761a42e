package app

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/convert"
	"calq/convert/lo"
	"calq/internal/cli/base"
	"calq/internal/dburl"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the environment: LibreOffice, Chromium, fonts, writable directories",
		Description: "Checks what calq convert needs: that LibreOffice starts and converts a\n" +
			"one-line document (with its profile in --state-dir, as calq convert; a few\n" +
			"seconds), saying how long that took or why it failed; that Chromium prints a\n" +
			"one-line page (.html and .md files, and calq serve's /forms/chromium routes,\n" +
			"need it; without it HTML goes to LibreOffice: advice, not a failure); the fonts that Office\n" +
			"documents expect (Carlito for Calibri, Caladea for Cambria, Liberation,\n" +
			"DejaVu); that some font covers each writing system people write in (Latin,\n" +
			"Greek, Cyrillic, Arabic, Hebrew, Devanagari, Thai, Japanese, Chinese, Korean,\n" +
			"emoji, symbols: fontconfig is asked for a sample of each, and a missing one\n" +
			"is named with the Debian package that brings it); that the journal's\n" +
			"directory (--db) and --out, if given, are writable; and that a PostgreSQL\n" +
			"--db takes a connection (its password is never shown). Says how to fix what\n" +
			"is missing. Exits 1 when LibreOffice does not convert or a directory is not\n" +
			"writable (the checks with \"fatal\": true); a missing font or script is\n" +
			"advice. --json prints a line per check:\n" +
			`{"message_type":"check","name","ok","detail","fix","fatal"}.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "also check that `DIR` is writable"},
			&cli.StringFlag{Name: "soffice", EnvVars: []string{"CALQ_SOFFICE"}, Usage: "the soffice program"},
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CALQ_CHROMIUM"}, Usage: "the chromium program", DefaultText: "chromium or chromium-browser on PATH"},
			&cli.StringFlag{Name: "state-dir", Value: lo.DefaultStateDir(), Usage: "start LibreOffice with its profile in `DIR`, as calq convert --state-dir"},
			base.JSONFlag(),
			base.DBFlag(),
		},
		Action: func(c *cli.Context) error {
			o := convert.DoctorOptions{Soffice: c.String("soffice"), Chromium: c.String("chromium"), StateDir: c.String("state-dir")}
			jn := base.JournalPath(c)
			if dburl.IsPostgres(jn) {
				// The shared queue is checked by connecting; the
				// PDFs' provenance stays in this machine's journal.
				o.DB, jn = jn, base.DefaultJournalPath()
			}
			if jn != "" { // "": no home, which opening the journal reports
				o.Dirs = []string{filepath.Dir(jn)}
			}
			if out := c.String("out"); out != "" {
				o.Dirs = append(o.Dirs, out)
			}
			checks := convert.Doctor(c.Context, o)
			if err := writeChecks(c.App.Writer, checks, c.Bool("json")); err != nil {
				return err
			}
			return convert.Problems(checks)
		},
	}
}

// writeChecks prints the checks as a table, or as JSON Lines.
func writeChecks(w io.Writer, checks []convert.Check, asJSON bool) error {
	if asJSON {
		return base.WriteJSONLines(w, "check", checks)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, ck := range checks {
		mark := "ok"
		if !ck.OK {
			mark = "MISSING"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", mark, ck.Name, base.SafeText(ck.Detail)) // a path, a tool's answer, a server's error
		if ck.Fix != "" {
			fmt.Fprintf(tw, "\t\tfix: %s\n", base.SafeText(ck.Fix))
		}
	}
	return tw.Flush()
}
