package main

import (
	"bytes"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"calq/internal/smtptest"
)

// TestConvertMailOnlyNew: --mail-to mails what this run converted, under
// names that keep two report.pdf apart, and a run with nothing new sends
// nothing; the outcome is in --json.
func TestConvertMailOnlyNew(t *testing.T) {
	srv := smtptest.Start(t, "")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, fmt.Sprintf("[smtp]\nhost = \"127.0.0.1\"\nport = %d\nfrom = \"calq@example.com\"\nstarttls = \"none\"\n", srv.Port))
	in := filepath.Join(dir, "in")
	for _, sub := range []string{"a", "b"} {
		must(t, os.MkdirAll(filepath.Join(in, sub), 0o755))
		copyData(t, "testPNG.png", filepath.Join(in, sub, "report.png"))
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := calqCmd(t, append([]string{"convert", "--json", "--config", cfg, "--db", filepath.Join(dir, "j.db"),
			"-o", filepath.Join(dir, "out"), "--mail-to", "records@example.com"}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("calq convert: %v\n%s", err, stderr.String())
		}
		return stdout.String()
	}
	out := run(in)
	if !strings.Contains(out, `"message_type":"mail","to":["records@example.com"],"attachments":["a_report.pdf","b_report.pdf"],"state":"sent"`) {
		t.Errorf("first run's mail line missing:\n%s", out)
	}
	raws, _ := srv.Received(t)
	if len(raws) != 1 {
		t.Fatalf("%d mails after the first run, want 1", len(raws))
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raws[0]))
	must(t, err)
	body := new(bytes.Buffer)
	body.ReadFrom(msg.Body)
	for _, name := range []string{"a_report.pdf", "b_report.pdf"} {
		if !strings.Contains(body.String(), name) {
			t.Errorf("the mail lacks an attachment named %s", name)
		}
	}
	out = run(in)
	if !strings.Contains(out, `"message_type":"mail"`) || !strings.Contains(out, `"state":"not_sent"`) {
		t.Errorf("second run's mail line missing or sent:\n%s", out)
	}
	if raws, _ := srv.Received(t); len(raws) != 1 {
		t.Errorf("%d mails after a run with nothing new, want still 1", len(raws))
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(data), 0o644))
}

func copyData(t *testing.T, name, dst string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "convert", name))
	must(t, err)
	must(t, os.WriteFile(dst, b, 0o644))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
