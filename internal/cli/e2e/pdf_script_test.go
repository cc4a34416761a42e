package e2e

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"calq/convert/pdf"
)

// Script commands that look inside PDFs and at files, for the convert
// scripts.
var pdfScriptCmds = map[string]func(*testscript.TestScript, bool, []string){
	"pdftext":  cmdPDFText,
	"pdfa":     cmdPDFA,
	"filemode": cmdFileMode,
	"pdfinfo":  cmdPDFInfo,
}

// cmdPDFInfo implements "pdfinfo FILE KEY=VALUE...": what pdf.Inspect
// reads of FILE; keys pages, encrypted, title.
func cmdPDFInfo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: pdfinfo FILE KEY=VALUE...")
	}
	info, err := pdf.Inspect(ts.MkAbs(args[0]), "")
	ts.Check(err)
	got := map[string]string{"pages": strconv.Itoa(info.Pages), "encrypted": strconv.FormatBool(info.Encrypted), "title": info.Title}
	for _, kv := range args[1:] {
		k, v, _ := strings.Cut(kv, "=")
		g, ok := got[k]
		if !ok {
			ts.Fatalf("pdfinfo: unknown key %q", k)
		}
		if g != v {
			ts.Fatalf("%s: %s is %q, want %q", args[0], k, g, v)
		}
	}
}

// cmdPDFText implements "[!] pdftext REGEXP FILE": the text of the PDF
// FILE matches REGEXP (or, negated, does not).
func cmdPDFText(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: pdftext REGEXP FILE")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	text, err := pdf.Text(ts.MkAbs(args[1]), "")
	ts.Check(err)
	if re.MatchString(text) == neg {
		ts.Fatalf("text of %s matches %q: %v, want %v\n%s", args[1], args[0], neg, !neg, text)
	}
}

// cmdPDFA implements "pdfa PART FILE": FILE identifies as PDF/A-PART
// (0: not PDF/A) in its XMP metadata.
func cmdPDFA(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: pdfa PART FILE")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	c, err := pdf.PDFA(context.Background(), ts.MkAbs(args[1]))
	ts.Check(err)
	if c.Part != want || (want != 0 && c.Level == "") {
		ts.Fatalf("%s is PDF/A part %d level %q, want part %d", args[1], c.Part, c.Level, want)
	}
}

// cmdFileMode implements "filemode MODE FILE": FILE's permission bits
// are MODE (octal).
func cmdFileMode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: filemode MODE FILE")
	}
	want, err := strconv.ParseUint(args[0], 8, 32)
	ts.Check(err)
	fi, err := os.Stat(ts.MkAbs(args[1]))
	ts.Check(err)
	if got := fi.Mode().Perm(); got != os.FileMode(want) {
		ts.Fatalf("%s has mode %#o, want %#o", args[1], got, want)
	}
}
