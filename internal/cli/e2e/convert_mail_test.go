package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mailpkg "calq/convert/mail"
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
	b, err := os.ReadFile(filepath.Join(repoTestdata, "convert", name))
	must(t, err)
	must(t, os.WriteFile(dst, b, 0o644))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestConvertMailFailedIsSentNext: a mail that failed (SMTP down) with
// every PDF made exits 3 and says so; once the server is back, the next
// run with nothing new mails the PDFs it left undelivered (the merged
// one with --merge), once: the run after sends nothing.
func TestConvertMailFailedIsSentNext(t *testing.T) {
	srv := smtptest.Start(t, "")
	tests := []struct {
		name  string
		args  []string
		files []string // the attachments of the mail that makes up for the failed one
	}{
		{"files", nil, []string{"a_report.pdf", "b_report.pdf"}},
		{"merged", []string{"--merge", "all.pdf"}, []string{"all.pdf"}},
	}
	mails := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in")
			for _, sub := range []string{"a", "b"} {
				must(t, os.MkdirAll(filepath.Join(in, sub), 0o755))
				copyData(t, "testPNG.png", filepath.Join(in, sub, "report.png"))
			}
			cfg := filepath.Join(dir, "config.toml")
			smtpAt := func(port int) {
				writeFile(t, cfg, fmt.Sprintf("[smtp]\nhost = \"127.0.0.1\"\nport = %d\nfrom = \"calq@example.com\"\nstarttls = \"none\"\n", port))
			}
			run := func(wantCode int) (stdout, stderr string) {
				t.Helper()
				args := append([]string{"convert", "--json", "--config", cfg, "--db", filepath.Join(dir, "j.db"),
					"-o", filepath.Join(dir, "out"), "--mail-to", "records@example.com"}, tt.args...)
				cmd := calqCmd(t, append(args, in)...)
				cmd.Dir = dir
				var o, e bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &e
				_ = cmd.Run()
				if got := cmd.ProcessState.ExitCode(); got != wantCode {
					t.Fatalf("calq convert exited %d, want %d\n%s%s", got, wantCode, o.String(), e.String())
				}
				return o.String(), e.String()
			}

			smtpAt(closedPort(t))
			out, errs := run(3)
			if !strings.Contains(out, `"message_type":"mail"`) || !strings.Contains(out, `"state":"failed"`) {
				t.Errorf("the failed mail's line is missing:\n%s", out)
			}
			if !strings.Contains(out, `"converted":2,`) {
				t.Errorf("the PDFs were not all made:\n%s", out)
			}
			if !strings.Contains(errs, "calq: hint: the PDFs are written; the next calq convert with the same --mail-to mails them") {
				t.Errorf("stderr lacks the hint:\n%s", errs)
			}

			smtpAt(srv.Port)
			out, _ = run(0)
			want := fmt.Sprintf(`"message_type":"mail","to":["records@example.com"],"attachments":%s,"state":"sent","earlier":%[1]s}`,
				jsonStrings(tt.files))
			if !strings.Contains(out, want) {
				t.Errorf("the run after the failure: mail line\n%s\nwant %s", out, want)
			}
			mails++
			if raws, _ := srv.Received(t); len(raws) != mails {
				t.Fatalf("%d mails received, want %d", len(raws), mails)
			}

			out, _ = run(0)
			if !strings.Contains(out, `"attachments":[],"state":"not_sent","reason":"nothing new was converted"}`) {
				t.Errorf("the third run's mail line is not not_sent:\n%s", out)
			}
			if raws, _ := srv.Received(t); len(raws) != mails {
				t.Errorf("%d mails received after a run with nothing left, want still %d", len(raws), mails)
			}
		})
	}
}

// closedPort is a loopback port nothing listens on: an SMTP server that
// is down.
func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	must(t, l.Close())
	return port
}

func jsonStrings(ss []string) string {
	b, _ := json.Marshal(ss)
	return string(b)
}

// TestConvertMailInterrupted: Ctrl-C after some PDFs are made mails
// nothing but keeps them for the next run, which finds them unchanged and
// mails them with the rest, in one mail.
func TestConvertMailInterrupted(t *testing.T) {
	requireSoffice(t)
	srv := smtptest.Start(t, "")
	const n = 10
	in, out, db := convertFixture(t, n)
	tmp := t.TempDir()
	cfg := filepath.Join(tmp, "config.toml")
	writeFile(t, cfg, fmt.Sprintf("[smtp]\nhost = \"127.0.0.1\"\nport = %d\nfrom = \"calq@example.com\"\nstarttls = \"none\"\n", srv.Port))
	args := []string{"convert", "--json", "--instances", "1", "--db", db, "-o", out, "--config", cfg, "--mail-to", "records@example.com", in}

	cmd := calqCmd(t, args...)
	cmd.Env = append(cmd.Env, convertEnv(tmp)...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	must(t, cmd.Start())
	waitFirstPDF(t, cmd, out)
	must(t, cmd.Process.Signal(os.Interrupt))
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit status %d, want 130\n%s", code, stdout.String())
	}
	var first struct {
		Converted int `json:"converted"`
	}
	var held struct {
		State, Reason string
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		switch {
		case strings.Contains(line, `"message_type":"summary"`):
			must(t, json.Unmarshal([]byte(line), &first))
		case strings.Contains(line, `"message_type":"mail"`):
			must(t, json.Unmarshal([]byte(line), &held))
		}
	}
	if held.State != "not_sent" || !strings.Contains(held.Reason, "interrupted") || first.Converted == 0 {
		t.Errorf("after Ctrl-C: mail %+v, %d converted; want not_sent, interrupted, some converted\n%s", held, first.Converted, stdout.String())
	}
	if raws, _ := srv.Received(t); len(raws) != 0 {
		t.Errorf("%d mails sent by an interrupted run, want 0", len(raws))
	}

	cmd = calqCmd(t, args...)
	cmd.Env = append(cmd.Env, convertEnv(tmp)...)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("the second run: %v\n%s", err, b)
	}
	var sent mailpkg.Result
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"message_type":"mail"`) {
			must(t, json.Unmarshal([]byte(line), &sent))
		}
	}
	if sent.State != "sent" || len(sent.Attachments) != n || len(sent.Earlier) != first.Converted {
		t.Errorf("the second run's mail: %s with %d attachments, %d earlier; want sent, %d, %d",
			sent.State, len(sent.Attachments), len(sent.Earlier), n, first.Converted)
	}
	if raws, _ := srv.Received(t); len(raws) != 1 {
		t.Errorf("%d mails after the second run, want 1", len(raws))
	}
}
