package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"calq/internal/pgtest"
	"calq/internal/tooltest"
)

// TestConvertHTMLSharedChromium: on the shared queue, web pages go only
// to a worker that has Chromium. Two workers serve every convert kind;
// the one whose PATH has no chromium registers without convert-html, and
// every HTML and Markdown file of the batch is claimed and converted by
// the other.
func TestConvertHTMLSharedChromium(t *testing.T) {
	tooltest.Require(t, "chromium")
	srv := pgtest.Start(t)
	c := pgConn(t, srv.URL)

	// Without chromium: an empty PATH, and first, so that it would be
	// there to claim. Leases are long: a loaded machine must not take
	// jobs back from a worker that runs them.
	bare := calqCmd(t, "worker", "--db", srv.URL, "--kinds", "convert", "-j", "2", "--name", "bare", "--lease", "5m")
	bare.Env = append(bare.Env, convertEnv(t.TempDir())...)
	bare.Env = append(bare.Env, "PATH="+t.TempDir())
	var bareLog lockedBuilder
	bare.Stderr = &bareLog
	if err := bare.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bare.Process.Signal(syscall.SIGTERM); bare.Wait() })
	bareID := workerID(t, c, bare.Process.Pid)
	chrome := startWorker(t, srv.URL, "--kinds", "convert", "-j", "2", "--name", "chrome", "--lease", "5m")
	chromeID := workerID(t, c, chrome.Process.Pid)

	kinds := func(id string) string {
		return strings.Join(pgStrings(t, c, `SELECT array_to_string(kinds, ',') FROM workers WHERE id = $1`, id), "")
	}
	if got := kinds(bareID); strings.Contains(got, "convert-html") {
		t.Errorf("the worker without chromium registered kinds %s, want no convert-html", got)
	}
	if got := kinds(chromeID); !strings.Contains(got, "convert-html") {
		t.Errorf("the worker with chromium registered kinds %s, want convert-html among them", got)
	}

	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	for name, content := range map[string]string{
		"a.html": "<!doctype html><p>Page A</p>", "b.htm": "<p>Page B</p>", "c.md": "# Notes C\n\ntext\n",
	} {
		if err := os.MkdirAll(in, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub := calqCmd(t, "convert", "-j", "0", "--db", srv.URL, "-o", filepath.Join(tmp, "out"), in)
	sub.Env = append(sub.Env, convertEnv(tmp)...)
	sub.Env = append(sub.Env, "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	if out, err := sub.CombinedOutput(); err != nil || !strings.Contains(string(out), "3 converted, 0 skipped, 0 failed") {
		t.Fatalf("convert -j 0: %v\n%s\nthe worker without chromium:\n%s", err, out, bareLog.String())
	}
	got := pgStrings(t, c, `SELECT DISTINCT a.worker || ' ' || j.kind FROM attempts a JOIN jobs j ON j.id = a.job_id`)
	if want := []string{"chrome convert-html"}; !slices.Equal(got, want) {
		t.Errorf("attempts by worker and kind: got %q, want %q", got, want)
	}
	if !strings.Contains(bareLog.String(), "kind convert-html not taken: chromium is not installed") {
		t.Errorf("the worker without chromium did not say why it takes no web pages:\n%s", bareLog.String())
	}
}
