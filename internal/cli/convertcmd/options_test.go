package convertcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"calq/convert"
	"calq/convert/chromium"
	"calq/convert/pdf"
	"calq/internal/cli/base"
	"calq/sched"
)

// parseConvert parses a calq convert command line with the command's own
// flags, without running it: the action only reads the options.
func parseConvert(t *testing.T, line string) (convert.Options, []string, error) {
	t.Helper()
	cmd := Command()
	var o convert.Options
	var mailTo []string
	cmd.Action = func(c *cli.Context) (err error) {
		o, mailTo, err = convertOptions(c)
		return err
	}
	app := &cli.App{Name: "calq", Commands: []*cli.Command{cmd}, Writer: io.Discard, ErrWriter: io.Discard}
	err := app.Run(append([]string{"calq", "convert"}, strings.Fields(line)...))
	return o, mailTo, err
}

// parseIn runs the test in a new directory, without a config file, a
// --db or a user password from the environment; owner is
// $CALQ_OWNER_PASSWORD.
func parseIn(t *testing.T, owner string) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, v := range []string{"CALQ_DB", "CALQ_CONFIG", "CALQ_USER_PASSWORD"} {
		t.Setenv(v, "")
	}
	t.Setenv("CALQ_OWNER_PASSWORD", owner)
}

// TestConvertOptions: argument lines give the options they say; flags
// and inputs are read apart from running.
func TestConvertOptions(t *testing.T) {
	parseIn(t, "secret")
	if err := os.WriteFile("upw", []byte("open"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		line   string
		want   func(o *convert.Options) // applied to the options of "-o out in"
		mailTo []string
	}{
		{"defaults", "-o out in", nil, nil},
		{"several inputs", "-o out --force in in2", func(o *convert.Options) {
			o.Inputs, o.Force = []string{"in", "in2"}, true
		}, nil},
		{"watermark as a stamp", "-o out --watermark X --stamp in", func(o *convert.Options) {
			o.Post.Watermark = &pdf.Watermark{Text: "X", OnTop: true}
		}, nil},
		{"metadata and optimize", "-o out --title T --keywords K --optimize in", func(o *convert.Options) {
			o.Post.Metadata, o.Post.Optimize = &pdf.Metadata{Title: "T", Keywords: "K"}, true
		}, nil},
		{"PDF/A", "-o out --pdfa 2 in", func(o *convert.Options) { o.PDFA = 2 }, nil},
		{"encryption from the environment", "-o out --encrypt --permissions print --allow copy in", func(o *convert.Options) {
			o.Post.Encrypt = &pdf.Encryption{OwnerPassword: "secret", Permissions: pdf.Permissions{Print: true, PrintHigh: true, Copy: true}}
		}, nil},
		{"user password from a file", "-o out --encrypt --user-password-file upw in", func(o *convert.Options) {
			o.Post.Encrypt = &pdf.Encryption{UserPassword: "open", OwnerPassword: "secret"}
		}, nil},
		{"priority, timeout, retries, label", "-o out -p P0 --timeout 2m --retries 3 --label nightly in", func(o *convert.Options) {
			o.Class, o.Timeout, o.Retries, o.Label = sched.P0, 2*time.Minute, 3, "nightly"
		}, nil},
		{"LibreOffice", "-o out --instances 2 --memory-limit 1024 --state-dir st in", func(o *convert.Options) {
			o.LibreOffice.Instances, o.LibreOffice.MemoryLimit, o.LibreOffice.StateDir = 2, 1024<<20, "st"
		}, nil},
		{"pdfcpu's bounds", "-o out --pdf-memory-limit 256 --max-pdf-pages 20 --max-pdf-inflated 64 in", func(o *convert.Options) {
			o.PDFWork.MemoryLimit, o.PDFLimits = 256<<20, pdf.Limits{MaxPages: 20, MaxInflated: 64 << 20}
		}, nil},
		{"filters and merge", "-o out --include *.docx --exclude tmp/** --merge out/all.pdf in", func(o *convert.Options) {
			o.Include, o.Exclude, o.Merge = []string{"*.docx"}, []string{"tmp/**"}, "out/all.pdf"
		}, nil},
		{"mail", "-o out --mail-to ann --mail-to bob@example.com in", nil, []string{"ann", "bob@example.com"}},
		{"web pages", "-o out --url http://example.com/a --html-engine libreoffice --paper a4 --margin 10mm --scale 0.5 " +
			"--landscape --print-background --wait-delay 1s --wait-for-selector #done --wait-for-expression ready " +
			"--media screen --user-agent UA --javascript=false --chromium-allow 127.0.0.1 in", func(o *convert.Options) {
			o.URLs, o.HTML.Engine = []string{"http://example.com/a"}, "libreoffice"
			p := chromium.DefaultPDF()
			p.PaperWidth, p.PaperHeight, p.Scale, p.Landscape, p.PrintBackground = 8.27, 11.7, 0.5, true, true
			mm := 10 / perInch("mm") // divided as calq does, not as a constant
			p.MarginTop, p.MarginRight, p.MarginBottom, p.MarginLeft = mm, mm, mm, mm
			o.HTML.Page = &p
			o.HTML.Load = chromium.Load{WaitDelay: time.Second, WaitForSelector: "#done", WaitForExpression: "ready",
				EmulatedMediaType: "screen", UserAgent: "UA"}
			o.HTML.Chromium.DisableJavaScript, o.HTML.Chromium.Policy.AllowNetworks = true, []string{"127.0.0.1"}
		}, nil},
		{"paper in units, four margins", "-o out --paper 100mmx6in --margin 1in,0,2cm,72pt in", func(o *convert.Options) {
			p := chromium.DefaultPDF()
			p.PaperWidth, p.PaperHeight = 100/perInch("mm"), 6
			p.MarginTop, p.MarginRight, p.MarginBottom, p.MarginLeft = 1, 0, 2/perInch("cm"), 1
			o.HTML.Page = &p
		}, nil},
		{"only URLs", "-o out --url https://example.com/", func(o *convert.Options) {
			o.Inputs, o.URLs = []string{}, []string{"https://example.com/"}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := parseDefaults(t)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil {
				tt.want(&want)
			}
			got, mailTo, err := parseConvert(t, tt.line)
			if err != nil {
				t.Fatalf("calq convert %s: %v", tt.line, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("calq convert %s:\ngot  %s\nwant %s", tt.line, show(got), show(want))
			}
			if !reflect.DeepEqual(mailTo, tt.mailTo) {
				t.Errorf("calq convert %s: got --mail-to %q, want %q", tt.line, mailTo, tt.mailTo)
			}
		})
	}
}

// show prints o with what its post-processing points at.
func show(o convert.Options) string {
	p := o.Post
	o.Post = pdf.Post{}
	return fmt.Sprintf("%+v with watermark %+v, metadata %+v, optimize %v, encryption %+v",
		o, deref(p.Watermark), deref(p.Metadata), p.Optimize, deref(p.Encrypt))
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// parseDefaults is what "-o out in" gives.
func parseDefaults(t *testing.T) (convert.Options, error) {
	o, _, err := parseConvert(t, "-o out in")
	if err == nil && (o.Out != "out" || !reflect.DeepEqual(o.Inputs, []string{"in"}) || o.Class != sched.P2 || o.Retries != 1) {
		t.Fatalf("calq convert -o out in: got out %q, inputs %q, class %v, retries %d; want out, [in], P2, 1",
			o.Out, o.Inputs, o.Class, o.Retries)
	}
	return o, err
}

// TestConvertOptionsUsage: what a command line may not ask is a usage
// error (exit status 2) naming every problem, one a line, in order, and pointing at
// --help.
func TestConvertOptionsUsage(t *testing.T) {
	parseIn(t, "")
	tests := []struct {
		name, line, want string
	}{
		{"nothing", "", "no PATH to convert\n--out: required (the directory for the PDFs)"},
		{"out to stdout", "-o - in", "--out -: calq writes PDFs into a directory, not to standard output"},
		{"bad priority", "-o out -p P9 in", `--priority: `},
		{"jobs without postgres", "-o out -j 2 in", "--jobs: only with a postgres:// --db (here --instances sets how many files convert at once)"},
		{"negative", "-o out --retries -1 in", "--timeout, --retries, --instances, --jobs and --memory-limit must not be negative"},
		{"memory limit that would wrap", "-o out --memory-limit 9999999999999 in", "--memory-limit: 9999999999999 MiB is above the limit 8796093022207"},
		{"pdfcpu's bounds negative", "-o out --max-pdf-pages -1 in", "--pdf-memory-limit, --max-pdf-pages and --max-pdf-inflated must not be negative"},
		{"pdfcpu's memory limit that would wrap", "-o out --pdf-memory-limit 9999999999999 in", "--pdf-memory-limit: 9999999999999 MiB is above the limit 8796093022207"},
		{"PDF/A level", "-o out --pdfa 4 in", "--pdfa: 4, want 1, 2 or 3"},
		{"bad glob", "-o out --include [ in", "--include/--exclude: "},
		{"stamp alone", "-o out --stamp in", "--stamp: only with --watermark or --watermark-image"},
		{"two watermarks", "-o out --watermark X --watermark-image x.png in",
			"--watermark and --watermark-image: give one\nwatermark: give either a text or an image"},
		{"unreadable password, and PDF/A", "-o out --pdfa 1 --encrypt --owner-password-file missing in",
			"--owner-password-file: \n--pdfa and --encrypt: encryption breaks PDF/A conformance; choose one"},
		{"no owner password, and PDF/A", "-o out --pdfa 1 --encrypt in",
			"--encrypt: needs an owner password: --owner-password-file FILE or CALQ_OWNER_PASSWORD\n" +
				"--pdfa and --encrypt: encryption breaks PDF/A conformance; choose one"},
		{"PDF/A conflicts", "-o out --pdfa 1 --title T --watermark W --optimize --merge m.pdf in",
			"--pdfa and --merge: calq convert merges after each file's PDF/A export, and the merge is not PDF/A; choose one\n" +
				"--pdfa 1 and a watermark or stamp: PDF/A-1 forbids their transparency, and LibreOffice's PDF/A-1 export turns the pages they cover into pictures, their text lost; use --pdfa 2 or 3\n" +
				"--pdfa 1 and --title, --author, --subject or --keywords: calq writes them after the PDF/A export, and that rewrite (PDF 1.7, object streams) is not PDF/A-1; use --pdfa 2 or 3"},
		{"html engine", "-o out --html-engine word in", `--html-engine "word": want chromium, libreoffice or auto`},
		{"paper", "-o out --paper folio in", `--paper: "folio": want letter, legal, tabloid, ledger, a0 to a6, or WIDTHxHEIGHT`},
		{"paper length", "-o out --paper 3furlongsx2 in", `--paper: "3furlongs": not a length`},
		{"margins", "-o out --margin 1,2 in", `--margin: "1,2": want one length, or four`},
		{"negative margin", "-o out --margin -1mm in", `--margin: "-1mm": a margin must not be negative`},
		{"margins too wide", "-o out --paper a6 --margin 3in in", "--margin: the margins leave no room on the paper"},
		{"scale", "-o out --scale 3 in", "--scale 3: want 0.1 to 2"},
		{"media", "-o out --media tv in", `--media: "tv": want print or screen`},
		{"missing header", "-o out --header-html nope.html in", "--header-html: "},
		{"urls and the shared queue", "--db postgres://h/db -o out --url http://x/ in",
			"--url and a postgres:// --db: the shared queue takes files; archive the pages on this machine"},
		{"flag errors before the checks", "-j 2 --pdfa 4", "no PATH to convert\n--out: required (the directory for the PDFs)\n" +
			"--jobs: only with a postgres:// --db (here --instances sets how many files convert at once)\n--pdfa: 4, want 1, 2 or 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parseConvert(t, tt.line)
			var ue *base.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("calq convert %s: got %v, want a usage error", tt.line, err)
			}
			got, want := strings.Split(err.Error(), "\n"), strings.Split(tt.want, "\n")
			if len(got) != len(want) {
				t.Fatalf("calq convert %s: got %q, want %d lines beginning %q", tt.line, err, len(want), want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], want[i]) {
					t.Errorf("calq convert %s: got line %q, want it to begin %q", tt.line, got[i], want[i])
				}
			}
			if got, want := ue.Hint(), "run 'calq convert --help' for usage"; got != want {
				t.Errorf("calq convert %s: got hint %q, want %q", tt.line, got, want)
			}
		})
	}
}

// perInch is how many of unit make an inch, as a variable: Go divides
// constants exactly, calq at run time.
func perInch(unit string) float64 {
	for _, u := range units {
		if u.suffix == unit {
			return u.perInch
		}
	}
	panic("no unit " + unit)
}
