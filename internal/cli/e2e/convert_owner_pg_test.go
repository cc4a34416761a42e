package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"calq/internal/pgtest"
)

// TestConvertSharedOneInput: with -j 0, where calq worker processes
// convert, a PDF still belongs to one input. The provenance stays in the
// submitting machine's journal, and the same rule holds: B is refused
// over A's PDF, naming both, and A's PDF stays; --overwrite hands it to
// B; an input named twice is converted once.
func TestConvertSharedOneInput(t *testing.T) {
	srv := pgtest.Start(t)
	startWorker(t, srv.URL, "--kinds", "convert", "-j", "1")
	tmp := t.TempDir()
	a, b, out := filepath.Join(tmp, "A"), filepath.Join(tmp, "B"), filepath.Join(tmp, "out")
	for dir, src := range map[string]string{a: "pages_3.pdf", b: "testPDF.pdf"} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(repoTestdata, "convert", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "report.pdf"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pdfPath := filepath.Join(out, "report.pdf")
	var first []byte
	steps := []struct {
		name string
		args []string
		code int
		want string // a regular expression the output matches
	}{
		{"A converts", []string{a}, 0, `1 converted, 0 skipped, 0 failed`},
		{"B is refused", []string{b}, 1, regexp.QuoteMeta(pdfPath + " is the PDF of " + filepath.Join(a, "report.pdf") +
			", not of " + filepath.Join(b, "report.pdf") + "; --overwrite replaces it")},
		{"A twice is A once, unchanged", []string{a, filepath.Join(a, "report.pdf")}, 0,
			`(?s)already part of .*0 converted, 1 skipped`},
		{"B with --overwrite", []string{"--overwrite", b}, 0, `1 converted, 0 skipped, 0 failed`},
	}
	for _, s := range steps {
		cmd := calqCmd(t, append([]string{"convert", "-j", "0", "--db", srv.URL, "-o", out}, s.args...)...)
		cmd.Env = append(cmd.Env, convertEnv(tmp)...)
		cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
		got, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != s.code || !regexp.MustCompile(s.want).Match(got) {
			t.Fatalf("%s: exit %d, want %d, and output matching %q:\n%s", s.name, code, s.code, s.want, got)
		}
		now, err := os.ReadFile(pdfPath)
		switch {
		case err != nil:
			t.Fatalf("%s: %v", s.name, err)
		case first == nil:
			first = now
		case s.code != 0 && string(now) != string(first):
			t.Errorf("%s: A's PDF was replaced", s.name)
		case slices.Contains(s.args, "--overwrite") && string(now) == string(first):
			t.Errorf("%s: A's PDF is still there", s.name)
		}
	}
}
