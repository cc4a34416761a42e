package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/convert"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the environment: LibreOffice, fonts, writable directories",
		Description: "Checks what calq convert needs: soffice and its version, the fonts that\n" +
			"Office documents expect (Carlito for Calibri, Caladea for Cambria, Liberation,\n" +
			"DejaVu), and that the journal's directory (--db) and --out, if given, are\n" +
			"writable; says how to fix what is missing. Exits 1 when LibreOffice is\n" +
			`missing or a directory is not writable. --json prints [{"name","ok","detail","fix"}].`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "also check that `DIR` is writable"},
			&cli.StringFlag{Name: "soffice", EnvVars: []string{"CALQ_SOFFICE"}, Usage: "the soffice program"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			dbFlag(),
		},
		Action: func(c *cli.Context) error {
			dirs := []string{filepath.Dir(journalPath(c))}
			if out := c.String("out"); out != "" {
				dirs = append(dirs, out)
			}
			checks := convert.Doctor(c.Context, convert.DoctorOptions{Soffice: c.String("soffice"), Dirs: dirs})
			var err error
			if c.Bool("json") {
				err = writeJSONValue(c.App.Writer, checks)
			} else {
				tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
				for _, ck := range checks {
					mark := "ok"
					if !ck.OK {
						mark = "MISSING"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\n", mark, ck.Name, ck.Detail)
					if ck.Fix != "" {
						fmt.Fprintf(tw, "\t\tfix: %s\n", ck.Fix)
					}
				}
				err = tw.Flush()
			}
			var bad []error
			for _, ck := range checks {
				// Fonts are advice: documents still convert without them.
				if !ck.OK && (ck.Name == "LibreOffice" || len(ck.Name) > 9 && ck.Name[:9] == "writable ") {
					bad = append(bad, fmt.Errorf("%s: %s", ck.Name, ck.Detail))
				}
			}
			return errors.Join(append([]error{err}, bad...)...)
		},
	}
}
