package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"calq/internal/pgtest"
)

// Issue 23's "bytes are not text" cases: a command line or a file name is
// bytes, and runs as written on the shared queue as on this machine; a
// name stored as text that cannot be (a NUL, bytes that are not UTF-8)
// is refused with the same message on SQLite and PostgreSQL.

// highBytes is every byte from 0x80 to 0xff: none is UTF-8 on its own.
func highBytes() string {
	b := make([]byte, 0, 128)
	for c := 0x80; c <= 0xff; c++ {
		b = append(b, byte(c))
	}
	return string(b)
}

// TestSharedArgvBytes: a job's argument of bytes 0x80-0xff, given after
// --, and a Latin-1 line of a job file, reach the child unchanged when a
// worker runs them from the shared queue (json.Marshal would have made
// U+FFFD of each), as when this machine runs them from its journal;
// history shows them escaped.
func TestSharedArgvBytes(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	startWorker(t, srv.URL, "--kinds", "shell")
	arg := highBytes()
	latin1 := "caf\xe9 cr\xe8me br\xfbl\xe9e"
	for _, db := range []struct{ name, url string }{
		{"sqlite", filepath.Join(dir, "j.db")},
		{"postgres", srv.URL},
	} {
		t.Run(db.name, func(t *testing.T) {
			argFile, lineFile := filepath.Join(dir, db.name+"-arg"), filepath.Join(dir, db.name+"-line")
			run := []string{"sched", "run", "--db", db.url, "--retries", "0"}
			if db.name == "postgres" {
				run = append(run, "-j", "0")
			} else {
				run = append(run, "--journal")
			}
			_, errs, code := runCalq(t, nil, "", append(run, "--", "sh", "-c", `printf %s "$1" > "$2"`, "sh", arg, argFile)...)
			if code != 0 {
				t.Fatalf("sched run -- with bytes: exit %d, stderr %q", code, errs)
			}
			if got, err := os.ReadFile(argFile); err != nil || string(got) != arg {
				t.Errorf("the child got % x (%v), want % x", got, err, arg)
			}
			jobs := filepath.Join(dir, db.name+"-jobs.txt")
			if err := os.WriteFile(jobs, []byte("printf %s '"+latin1+"' > "+lineFile+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			_, errs, code = runCalq(t, nil, "", append(run, jobs)...)
			if code != 0 {
				t.Fatalf("sched run with a Latin-1 job file: exit %d, stderr %q", code, errs)
			}
			if got, err := os.ReadFile(lineFile); err != nil || string(got) != latin1 {
				t.Errorf("the Latin-1 line wrote %q (%v), want %q", got, err, latin1)
			}
			out, errs, code := runCalq(t, nil, "", "history", "--db", db.url)
			if code != 0 || !strings.Contains(out, `caf\xe9 cr\xe8me`) || !strings.Contains(out, `\x80\x81\x82`) {
				t.Errorf("history: exit %d, stderr %q; want both command lines with their bytes escaped in:\n%s", code, errs, out)
			}
			noRawControl(t, "history", out, "calq:")
		})
	}
}

// TestSharedFileNameBytes: a file whose name is Latin-1 converts through
// the shared queue, by blob and on a shared root, to an output of the same
// bytes; on the share the worker opened the file the payload named (it
// looked for "r\uFFFDsum\uFFFD.png" before, and failed for good).
func TestSharedFileNameBytes(t *testing.T) {
	srv := pgtest.Start(t)
	root := t.TempDir()
	name := "r\xe9sum\xe9"
	png, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "testPNG.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "in", name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	startWorker(t, srv.URL, "--kinds", "convert", "--shared-root", root)
	tmp := t.TempDir()
	env := append(convertEnv(tmp), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	for _, route := range [][]string{{"blob"}, {"share", "--shared-root", root}} {
		out := filepath.Join(tmp, route[0])
		_, errs, code := runCalq(t, env, "", append([]string{"convert", "-j", "0", "--db", srv.URL, "--retries", "0",
			"-o", out, filepath.Join(root, "in")}, route[1:]...)...)
		if code != 0 || !strings.Contains(errs, "1 converted") {
			t.Errorf("convert -j 0 by %s: exit %d, stderr %q", route[0], code, errs)
		}
		if b, err := os.ReadFile(filepath.Join(out, name+".pdf")); err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
			t.Errorf("by %s: the output %q: %v", route[0], name+".pdf", err)
		}
	}
}

// TestNamesAreText: a label, a history filter or a worker's name that is
// not UTF-8 is a usage error naming the flag and the byte, before any
// work, on SQLite and PostgreSQL alike, never a raw SQL error; a job file
// with a NUL is refused the same way on both.
func TestNamesAreText(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	nul := filepath.Join(dir, "nul.txt")
	if err := os.WriteFile(nul, []byte("touch "+marker+"\necho a\x00b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, db := range []struct{ name, url, submit string }{
		{"sqlite", filepath.Join(dir, "j.db"), "--journal"},
		{"postgres", srv.URL, "-j0"},
	} {
		for _, tt := range []struct {
			name string
			args []string
			want string
		}{
			{"sched run --label", []string{"sched", "run", "--db", db.url, db.submit, "--label", "nightly\xff", "--", "touch " + marker},
				`calq: --label "nightly\xff": byte 0xff at offset 7 is not UTF-8, and a name is stored as text`},
			{"history --label", []string{"history", "--db", db.url, "--label", "\xe9t\xe9"},
				`calq: --label "\xe9t\xe9": byte 0xe9 at offset 0 is not UTF-8`},
			{"history --backend", []string{"history", "--db", db.url, "--backend", "w\x80"},
				`calq: --backend "w\x80": byte 0x80 at offset 1 is not UTF-8`},
			{"convert --label", []string{"convert", "--db", db.url, "--label", "l\xfe", dir},
				`calq: --label "l\xfe": byte 0xfe at offset 1 is not UTF-8`},
			{"a job file with a NUL", []string{"sched", "run", "--db", db.url, db.submit, nul},
				"calq: job file " + nul + ": not a text file of command lines"},
		} {
			t.Run(db.name+"/"+tt.name, func(t *testing.T) {
				_, errs, code := runCalq(t, nil, "", tt.args...)
				if code != 2 || !strings.HasPrefix(errs, tt.want) || strings.Contains(errs, "SQLSTATE") {
					t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errs, tt.want)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatal("a job ran before the usage error")
				}
			})
		}
	}
	_, errs, code := runCalq(t, nil, "", "worker", "--db", srv.URL, "--name", "w\xff")
	if want := `calq: --name "w\xff": byte 0xff at offset 1 is not UTF-8`; code != 2 || !strings.HasPrefix(errs, want) {
		t.Errorf("worker --name: exit %d, stderr %q; want exit 2 and %q", code, errs, want)
	}
}

// TestSMSWithNUL: an SMS text holding a NUL is refused before it is
// recorded, the same on SQLite and PostgreSQL; a received one (UCS-2 can
// carry U+0000) is filed on both, its NUL shown as U+FFFD, instead of
// failing PostgreSQL's insert and staying on the SIM.
func TestSMSWithNUL(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	text := "open\x00sesame"
	inbox := deliverInbox(t, dir, text)
	for _, db := range []struct{ name, url string }{
		{"sqlite", filepath.Join(dir, "sms.db")},
		{"postgres", srv.URL},
	} {
		t.Run(db.name, func(t *testing.T) {
			env := []string{"XDG_STATE_HOME=" + filepath.Join(dir, db.name)}
			_, errs, code := runCalq(t, env, text, "sms", "send", "--db", db.url, "--no-wait", "+491701234567", "-")
			want := "calq: compose: the text holds a NUL character (U+0000) at byte 4"
			if code != 2 || !strings.Contains(errs, want) || strings.Contains(errs, "SQLSTATE") {
				t.Errorf("sms send: exit %d, stderr %q; want exit 2 and %q", code, errs, want)
			}
			dev := startEmulator(t, t.TempDir(), "--inbox", inbox)
			recv := []string{"sms", "recv", "--db", db.url, "--device", dev}
			if db.name == "postgres" {
				// On the shared database the daemon that holds the modem
				// files what it receives; recv reads it.
				daemon := calqCmd(t, "sms", "daemon", "--db", db.url, "--device", dev, "--poll-every", "200ms")
				daemon.Env = append(daemon.Env, env...)
				var log lockedBuilder
				daemon.Stdout, daemon.Stderr = &log, &log
				if err := daemon.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					daemon.Process.Signal(syscall.SIGTERM)
					daemon.Wait()
					if t.Failed() {
						t.Logf("daemon:\n%s", log.String())
					}
				})
				recv = []string{"sms", "recv", "--db", db.url, "--offline", "--keep"}
				waitFor(t, "the daemon to file the message", func() bool {
					out, _, _ := runCalq(t, env, "", recv...)
					return strings.Contains(out, "sesame")
				})
			}
			out, errs, code := runCalq(t, env, "", recv...)
			if code != 0 || !strings.HasSuffix(out, "\topen\uFFFDsesame\n") {
				t.Errorf("sms recv: exit %d, stdout %q, stderr %q; want the message with U+FFFD for its NUL", code, out, errs)
			}
			noRawControl(t, "sms recv", out, "#9")
		})
	}
}
