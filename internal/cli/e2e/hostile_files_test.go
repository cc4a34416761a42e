package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"calq/internal/pgtest"
	"calq/internal/tooltest"
)

// Issue 23's file cases (items 3, 11 and 14): what calq is pointed at may
// be a device, a FIFO, a directory, /dev/zero or a huge sparse file. calq
// never replaces a node that is not a regular file, reads at most a
// bounded amount of any file, waits on a FIFO only until interrupted,
// and leaves nothing of a dead worker's behind.

// nodes makes, in a fresh directory, what a path given to calq may be by
// mistake: a character device like /dev/null (mknod, so the real one is
// never at stake), a FIFO with no writer, a directory, and a symlink to
// the device.
func nodes(t *testing.T) (dir string, paths map[string]string) {
	t.Helper()
	if os.Geteuid() != 0 {
		tooltest.Unavailable(t, "needs root for mknod")
	}
	dir = t.TempDir()
	paths = map[string]string{
		"device": filepath.Join(dir, "null"),
		"fifo":   filepath.Join(dir, "fifo"),
		"dir":    filepath.Join(dir, "dir"),
		"link":   filepath.Join(dir, "link"),
	}
	if err := syscall.Mknod(paths["device"], syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(paths["fifo"], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(paths["dir"], 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(paths["device"], paths["link"]); err != nil {
		t.Fatal(err)
	}
	return dir, paths
}

var kinds = map[string]string{"device": "a character device", "fifo": "a FIFO", "dir": "a directory", "link": "a character device"}

// runBounded is runCalq under a deadline: calq that hangs on a FIFO or
// reads /dev/zero for ever fails the test instead of hanging it.
func runBounded(t *testing.T, env []string, stdin *os.File, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, calqCmd(t).Path, args...)
	cmd.Env = append(os.Environ(), append([]string{"GORACE=atexit_sleep_ms=0"}, env...)...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("calq %q: still running after 2 minutes (stderr %q)", args, errb.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestHostileTargets (item 3): a side output (--metrics-file,
// CALQ_METRICS_FILE, sms daemon's, --merge, --archive) or a journal
// (--db, CALQ_DB) that is a device, a FIFO, a directory or a link to a
// device is refused with one line naming it and what it is, before any
// work; the node is left as it was, and no "-journal" or "-wal" file is
// made beside it.
func TestHostileTargets(t *testing.T) {
	dir, paths := nodes(t)
	marker := filepath.Join(dir, "ran")
	jobs := filepath.Join(dir, "jobs.txt")
	mustWrite(t, jobs, "touch "+marker+"\n")
	db := filepath.Join(dir, "calq.db")
	doc := filepath.Join(dir, "a.png")
	mustWrite(t, doc, "not read")
	for _, name := range []string{"device", "fifo", "dir", "link"} {
		p := paths[name]
		for _, tt := range []struct {
			what string
			env  []string
			args []string
			want string
			code int
		}{
			{"--metrics-file", nil, []string{"sched", "run", "--db", db, "--metrics-file", p, jobs}, "--metrics-file " + p + " is " + kinds[name], 2},
			{"CALQ_METRICS_FILE", []string{"CALQ_METRICS_FILE=" + p}, []string{"sched", "run", "--db", db, jobs}, "--metrics-file " + p + " is " + kinds[name], 2},
			{"sms daemon", []string{"CALQ_METRICS_FILE=" + p}, []string{"sms", "daemon", "--db", db, "--device", filepath.Join(dir, "ttyNone")}, "--metrics-file " + p + " is " + kinds[name], 2},
			{"--merge", nil, []string{"convert", "--db", db, "-o", dir, "--merge", p, doc}, "--merge " + p + " is " + kinds[name], 2},
			{"--archive", nil, []string{"history", "prune", "--db", db, "--before", "1h", "--archive", p}, "--archive " + p + " is " + kinds[name], 2},
			{"--db", nil, []string{"sched", "run", "--journal", "--db", p, jobs}, "journal " + p + " is " + kinds[name] + ", not a regular file", 1},
			{"CALQ_DB", []string{"CALQ_DB=" + p}, []string{"sched", "run", "--journal", jobs}, "journal " + p + " is " + kinds[name] + ", not a regular file", 1},
		} {
			t.Run(name+"/"+tt.what, func(t *testing.T) {
				os.Remove(marker)
				before, _ := os.Lstat(p)
				_, errs, code := runBounded(t, tt.env, nil, tt.args...)
				if code != tt.code || !strings.Contains(errs, "calq: "+tt.want) {
					t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, tt.code, tt.want)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("a job ran before the error")
				}
				after, err := os.Lstat(p)
				if err != nil || after.Mode() != before.Mode() {
					t.Errorf("%s was %v, is %v (%v): replaced", p, before.Mode(), after.Mode(), err)
				}
				for _, suffix := range []string{"-journal", "-wal", "-shm"} {
					if _, err := os.Lstat(p + suffix); err == nil {
						t.Errorf("%s%s made beside it", p, suffix)
					}
				}
			})
		}
	}
}

// TestHostileMetricsAfterWork (item 14): a metrics file that cannot be
// written once the jobs ran (here a job makes its path a directory) is a
// warning naming it; the run keeps its exit status, 0: the work was done.
func TestHostileMetricsAfterWork(t *testing.T) {
	dir := t.TempDir()
	metrics := filepath.Join(dir, "m.prom")
	jobs := filepath.Join(dir, "jobs.txt")
	mustWrite(t, jobs, "rm -f "+metrics+" && mkdir "+metrics+"\n")
	_, errs, code := runBounded(t, nil, nil, "sched", "run", "--db", filepath.Join(dir, "calq.db"), "--metrics-file", metrics, jobs)
	want := "calq: warning: write metrics: " + metrics + " is a directory: not a regular file"
	if code != 0 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr %q; want exit 0 and %q", code, errs, want)
	}
}

// TestHostileReads (item 11): every file calq reads because it was
// pointed at it, given /dev/zero, a FIFO with no writer, a 1 GiB sparse
// file or a directory, fails at once with one line naming the file and
// the reason (the limit, for what is too big): never a hang, never a
// fatal out-of-memory.
func TestHostileReads(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse")
	if err := exec.Command("truncate", "-s", "1G", sparse).Run(); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(dir, "deep.toml")
	mustWrite(t, deep, "a = "+strings.Repeat("[", 100000)+"\n")
	doc := filepath.Join(dir, "a.png")
	mustWrite(t, doc, "not read")
	db := filepath.Join(dir, "calq.db")
	files := map[string]string{"/dev/zero": "/dev/zero", "fifo": fifo, "sparse": sparse, "dir": dir}
	// What each says: the kind of file, or the limit; a watermark image
	// is refused by its type first, and a trace by its first line.
	reasons := []string{"not a regular file", "larger than", "want a PDF, PNG", "line 1: longer than"}
	readers := []struct {
		name string
		run  func(path string) ([]string, []string) // env, args
		code int
	}{
		{"CALQ_CONFIG", func(p string) ([]string, []string) {
			return []string{"CALQ_CONFIG=" + p}, []string{"convert", "--db", db, "-o", dir, doc}
		}, 2},
		{"--config", func(p string) ([]string, []string) {
			return nil, []string{"convert", "--config", p, "--db", db, "-o", dir, doc}
		}, 2},
		{"--owner-password-file", func(p string) ([]string, []string) {
			return nil, []string{"convert", "--db", db, "-o", dir, "--encrypt", "--owner-password-file", p, doc}
		}, 2},
		{"--user-password-file", func(p string) ([]string, []string) {
			return []string{"CALQ_OWNER_PASSWORD=x"}, []string{"convert", "--db", db, "-o", dir, "--encrypt", "--user-password-file", p, doc}
		}, 2},
		{"--watermark-image", func(p string) ([]string, []string) {
			return nil, []string{"convert", "--db", db, "-o", dir, "--watermark-image", p, doc}
		}, 2},
		{"sms emulate --inbox", func(p string) ([]string, []string) {
			return nil, []string{"sms", "emulate", "--inbox", p}
		}, 1},
		{"analyze simulate trace", func(p string) ([]string, []string) {
			return nil, []string{"analyze", "simulate", "--arrivals", "trace:" + p, "--service", "exp:10", "--servers", "2"}
		}, 2},
	}
	for _, r := range readers {
		for _, name := range []string{"/dev/zero", "fifo", "sparse", "dir"} {
			path := files[name]
			t.Run(r.name+"/"+name, func(t *testing.T) {
				env, args := r.run(path)
				_, errs, code := runBounded(t, env, nil, args...)
				first, _, _ := strings.Cut(errs, "\n")
				if code != r.code || !strings.HasPrefix(first, "calq: ") || !strings.Contains(first, path) ||
					!slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(first, r) }) ||
					strings.Count(strings.TrimSpace(errs), "\n") > 1 {
					t.Errorf("exit %d, stderr %q; want exit %d and one line naming %s and why (%q)", code, errs, r.code, path, reasons)
				}
			})
		}
	}
	t.Run("deep TOML", func(t *testing.T) {
		_, errs, code := runBounded(t, []string{"CALQ_CONFIG=" + deep}, nil, "convert", "--db", db, "-o", dir, doc)
		if want := deep + ":1: nested deeper than 64 levels"; code != 2 || !strings.Contains(errs, want) {
			t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errs, want)
		}
	})
	// Standard input as an SMS text, and job files, which may be pipes.
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	for _, tt := range []struct {
		name  string
		stdin *os.File
		args  []string
		want  string
	}{
		{"sms send stdin", zero, []string{"sms", "send", "--db", db, "+4917012345678", "-"}, "the text on standard input: larger than 128 KiB"},
		{"sms encode stdin", zero, []string{"sms", "encode", "-"}, "TEXT on standard input: larger than 128 KiB"},
		{"sched run stdin", zero, []string{"sched", "run", "--db", db, "-"}, "standard input: larger than 64 MiB"},
		{"sched run /dev/zero", nil, []string{"sched", "run", "--db", db, "/dev/zero"}, "job file /dev/zero: larger than 64 MiB"},
		{"sched run sparse", nil, []string{"sched", "run", "--db", db, sparse}, "job file " + sparse + ": larger than 64 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, code := runBounded(t, nil, tt.stdin, tt.args...)
			if code != 2 || !strings.Contains(errs, "calq: "+tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errs, tt.want)
			}
		})
	}
}

// TestHostileJobFIFO: a job file that is a FIFO is read as cat reads it,
// waiting for a writer, and that wait ends with SIGTERM, as does the read
// of a standard input that never ends: exit 130, not a hang that ignores
// the signal and not a usage error.
func TestHostileJobFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "jobs")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("a writer comes", func(t *testing.T) {
		done := make(chan error, 1)
		go func() { done <- os.WriteFile(fifo, []byte("echo from the fifo\n"), 0o600) }()
		out, errs, code := runBounded(t, nil, nil, "sched", "run", "--db", filepath.Join(dir, "calq.db"), fifo)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if code != 0 || out != "from the fifo\n" {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and the job's line", code, out, errs)
		}
	})
	// No writer comes to the FIFO: calq says it waits for one, after a
	// second.
	t.Run("none comes", func(t *testing.T) {
		cmd := calqCmd(t, "sched", "run", "--db", filepath.Join(dir, "calq.db"), fifo)
		stderr := saidLine(t, cmd, "calq: job file "+fifo+": waiting for a writer")
		terminated(t, cmd, stderr.said, stderr, "calq: job file "+fifo+": context canceled")
	})
	// Standard input is a pipe whose writer never closes it: calq has
	// read what the test wrote, and waits for more.
	t.Run("stdin never ends", func(t *testing.T) {
		cmd := calqCmd(t, "sched", "run", "--db", filepath.Join(dir, "calq.db"), "-")
		var stderr lockedBuilder
		cmd.Stderr = &stderr
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		cmd.Stdin = r
		if _, err := w.WriteString("echo never runs\n"); err != nil {
			t.Fatal(err)
		}
		terminated(t, cmd, drained(t, w), &stderr, "calq: standard input: context canceled")
		r.Close()
	})
}

// terminated starts cmd, sends it SIGTERM once ready is closed, and
// checks that it exits 130 with want on stderr and no usage hint.
func terminated(t *testing.T, cmd *exec.Cmd, ready <-chan struct{}, stderr fmt.Stringer, want string) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-ready:
	case <-done:
		t.Fatalf("calq ended before it waited: %v\n%s", cmd.ProcessState, stderr)
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("calq did not get to its wait in a minute:\n%s", stderr)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	<-done
	code := cmd.ProcessState.ExitCode()
	if got := stderr.String(); code != 130 || !strings.Contains(got, want) || strings.Contains(got, "hint") {
		t.Errorf("exit %d, stderr %q; want 130 and %q without a usage hint", code, got, want)
	}
}

// drained returns a channel closed once the pipe whose write end is w
// holds no byte: its reader, another process, has read all that was
// written. A pipe's FIONREAD (TIOCINQ on Linux) counts the bytes in it,
// asked at either end.
func drained(t *testing.T, w *os.File) <-chan struct{} {
	t.Helper()
	c := make(chan struct{})
	go func() {
		defer close(c)
		for {
			n, err := unix.IoctlGetInt(int(w.Fd()), unix.TIOCINQ)
			if err != nil {
				t.Errorf("FIONREAD (TIOCINQ) of the pipe: %v", err)
				return
			}
			if n == 0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return c
}

// TestHostileNoHome (item 14): with HOME and XDG_STATE_HOME unset, the
// journal is the one under the user's home from /etc/passwd, never one
// in the current directory.
func TestHostileNoHome(t *testing.T) {
	u, err := user.Current()
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		tooltest.Unavailable(t, "the user has no home in /etc/passwd (%v)", err)
	}
	cwd := t.TempDir()
	cmd := calqCmd(t, "history", "--json", "--limit", "1")
	var env []string
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") && !strings.HasPrefix(kv, "CALQ_DB=") {
			env = append(env, kv)
		}
	}
	cmd.Env, cmd.Dir = env, cwd
	var errb strings.Builder
	cmd.Stderr = &errb
	err = cmd.Run() // read-only: it prints the history, or says the journal is missing
	want := filepath.Join(u.HomeDir, ".local", "state", "calq", "calq.db")
	if _, serr := os.Stat(want); serr == nil && err != nil {
		t.Errorf("%v, stderr %q; want the history of %s", err, errb.String(), want)
	} else if serr != nil && !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q; want the missing journal named %s", errb.String(), want)
	}
	if left, _ := os.ReadDir(cwd); len(left) > 0 {
		t.Errorf("calq made %v in the current directory", left)
	}
}

// TestHostileWorkerLeftovers (item 14): a worker killed with SIGKILL
// leaves its work directory (with copies of inputs and PDFs); the next
// worker's start removes it, and never a live worker's.
func TestHostileWorkerLeftovers(t *testing.T) {
	srv := pgtest.Start(t)
	tmp := t.TempDir()
	start := func() *exec.Cmd {
		cmd := calqCmd(t, "worker", "--db", srv.URL, "--quiet", "--kinds", "convert-image")
		cmd.Env = append(cmd.Env, convertEnv(tmp)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		})
		workerID(t, pgConn(t, srv.URL), cmd.Process.Pid) // registered: its directory is made
		return cmd
	}
	dirOf := func(cmd *exec.Cmd) string {
		m, _ := filepath.Glob(filepath.Join(tmp, "calq-worker-"+strconv.Itoa(cmd.Process.Pid)+"-*"))
		if len(m) != 1 {
			t.Fatalf("worker %d: work directories %q, want one", cmd.Process.Pid, m)
		}
		return m[0]
	}
	a := start()
	b := start()
	da, db := dirOf(a), dirOf(b)
	mustWrite(t, filepath.Join(da, "1", "in.docx"), "a copy of an input")
	a.Process.Kill()
	a.Wait()
	if _, err := os.Stat(da); err != nil {
		t.Fatalf("the killed worker's %s: %v; want it left, for the next start to remove", da, err)
	}
	c := start()
	if _, err := os.Stat(da); !os.IsNotExist(err) {
		t.Errorf("%s of the killed worker: %v after the next start; want it removed", da, err)
	}
	for _, live := range []string{db, dirOf(c)} {
		if _, err := os.Stat(live); err != nil {
			t.Errorf("a live worker's %s: %v; want it kept", live, err)
		}
	}
}
