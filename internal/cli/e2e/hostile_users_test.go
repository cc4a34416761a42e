package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/internal/pgtest"
	"calq/internal/tooltest"
)

// osUser is a local user a test runs calq as: its uid, its primary group
// and the supplementary groups it is a member of.
type osUser struct {
	uid, gid uint32
	groups   []uint32
}

// asUser returns bin args run as u, with u's own HOME, TMPDIR and state
// directory under home (which it owns), and umask 027 as the README asks
// of a share's users.
func asUser(t *testing.T, u osUser, home, bin string, args ...string) *exec.Cmd {
	t.Helper()
	for _, d := range []string{home, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, int(u.uid), int(u.gid)); err != nil {
			t.Fatal(err)
		}
	}
	// umask is the process's: the shell sets it for calq alone.
	cmd := exec.Command("/bin/sh", append([]string{"-c", `umask 027 && exec "$0" "$@"`, bin}, args...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + filepath.Join(home, "tmp"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"GORACE=atexit_sleep_ms=0"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.uid, Gid: u.gid, Groups: u.groups}}
	return cmd
}

// TestSharedRootAcrossUsers: a worker and a submitter that are different
// local users of one group share a setgid, group-writable root, as the
// README says to set it up. The worker (nobody) reads the submitter's
// inputs through the group and writes PDFs the submitter (daemon) can read
// and remove; the submitter ends with its PDFs and the share with nothing
// of the batch's left. An outsider, a user of neither, reads nothing there.
func TestSharedRootAcrossUsers(t *testing.T) {
	for _, tt := range []struct {
		name string
		mode os.FileMode
	}{
		{"setgid", 0o770 | os.ModeSetgid}, // as the README says
		{"group-writable", 0o770},         // the calq directory and its PDFs still take the root's group
	} {
		t.Run(tt.name, func(t *testing.T) { testSharedRootAcrossUsers(t, tt.mode) })
	}
}

func testSharedRootAcrossUsers(t *testing.T, rootMode os.FileMode) {
	if os.Geteuid() != 0 {
		tooltest.Unavailable(t, "running calq as two other local users needs root")
	}
	const team = 47213                                               // a group of their own: no file on this machine has it
	worker := osUser{uid: 65534, gid: 65534, groups: []uint32{team}} // nobody
	submitter := osUser{uid: 1, gid: 1, groups: []uint32{team}}      // daemon
	outsider := osUser{uid: 2, gid: 2}                               // bin, in neither's group

	base, err := os.MkdirTemp("", "calq-users-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	// calq itself, where the other users can run it.
	self, err := exec.LookPath("calq")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "calq")
	copyFile(t, self, bin, 0o755)

	// The share: the submitter's, the team's, setgid and group-writable;
	// the inputs as the submitter's umask 027 leaves them.
	root := filepath.Join(base, "share")
	in := filepath.Join(root, "in")
	for _, d := range []string{root, in} {
		if err := os.Mkdir(d, 0o770); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, int(submitter.uid), team); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, rootMode); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"testPNG.png", "pages_3.pdf", "testTIFF_multipage.tif"}
	for _, n := range names {
		p := filepath.Join(in, n)
		copyFile(t, filepath.Join(repoTestdata, "convert", "samples", n), p, 0o640)
		if err := os.Chown(p, int(submitter.uid), team); err != nil {
			t.Fatal(err)
		}
	}

	srv := pgtest.Start(t)
	w := asUser(t, worker, filepath.Join(base, "worker"), bin, "worker", "--db", srv.URL, "--quiet",
		"--kinds", "convert-image,convert-pdf", "--shared-root", root)
	var wlog lockedBuilder
	w.Stdout, w.Stderr = &wlog, &wlog
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Process.Signal(syscall.SIGTERM)
		w.Wait()
		if t.Failed() {
			t.Logf("worker log:\n%s", wlog.String())
		}
	})
	workerID(t, pgConn(t, srv.URL), w.Process.Pid)

	subHome := filepath.Join(base, "submitter")
	out := filepath.Join(subHome, "out")
	sub := asUser(t, submitter, subHome, bin, "convert", "-j", "0", "--db", srv.URL, "--shared-root", root, "-o", out, in)
	got, err := runWithin(t, sub, 3*time.Minute)
	if err != nil || !strings.Contains(got, "3 converted, 0 skipped, 0 failed") {
		ls, _ := exec.Command("ls", "-laR", root).CombinedOutput()
		t.Fatalf("convert -j 0 as the submitter, the worker another user: %v\n%s\nthe share:\n%s", err, got, ls)
	}
	for _, n := range names {
		pdfPath := filepath.Join(out, strings.TrimSuffix(n, filepath.Ext(n))+".pdf")
		data, err := os.ReadFile(pdfPath)
		if err != nil || !bytes.HasPrefix(data, []byte("%PDF-")) {
			t.Errorf("%s: %v, %q; want the PDF", pdfPath, err, head(data))
			continue
		}
		fi, _ := os.Stat(pdfPath)
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != submitter.uid {
			t.Errorf("%s is uid %d's, want the submitter's (%d)", pdfPath, st.Uid, submitter.uid)
		}
		if fi.Mode().Perm() != 0o640 {
			t.Errorf("%s has mode %#o, want %#o (the submitter's umask 027)", pdfPath, fi.Mode().Perm(), 0o640)
		}
	}
	work := filepath.Join(root, ".calq-shared")
	fi, err := os.Stat(work)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode() & (os.ModePerm | os.ModeSetgid); m != rootMode {
		t.Errorf("%s is %v, want as open to the group as the root (%v)", work, m, rootMode)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Gid != team {
		t.Errorf("%s is group %d's, want the root's (%d)", work, st.Gid, team)
	}
	if left, _ := os.ReadDir(work); len(left) != 1 || left[0].Name() != "id" {
		t.Errorf("%v left in the share's work directory, want only its id", left)
	}

	// Someone outside the group reads nothing of the share.
	peek := asUser(t, outsider, filepath.Join(base, "outsider"), "/bin/cat", filepath.Join(in, names[0]))
	if b, err := peek.CombinedOutput(); err == nil || !strings.Contains(string(b), "Permission denied") {
		t.Errorf("an outsider reading an input on the share: %v, %q; want Permission denied", err, head(b))
	}
}

// runWithin runs cmd and returns its combined output, failing the test if
// it takes longer than d.
func runWithin(t *testing.T, cmd *exec.Cmd, d time.Duration) (string, error) {
	t.Helper()
	var out lockedBuilder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not end in %v:\n%s", cmd.Args, d, out.String())
		return "", nil
	}
}

// copyFile copies src to dst with mode perm.
func copyFile(t *testing.T, src, dst string, perm os.FileMode) {
	t.Helper()
	r, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, r); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, perm); err != nil {
		t.Fatal(err)
	}
}

func head(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// TestPDFsFollowUmask: LibreOffice runs under umask 077 so that no other
// local user reaches its pipes, yet the PDFs calq places follow the
// user's umask, for an office document as for an image.
func TestPDFsFollowUmask(t *testing.T) {
	tooltest.Require(t, "soffice")
	self, err := exec.LookPath("calq")
	if err != nil {
		t.Fatal(err)
	}
	in := t.TempDir()
	for _, n := range []string{"report.docx", "testPNG.png"} {
		copyFile(t, filepath.Join(repoTestdata, "convert", "samples", n), filepath.Join(in, n), 0o644)
	}
	for _, tt := range []struct {
		umask string
		want  os.FileMode
	}{{"022", 0o644}, {"027", 0o640}, {"002", 0o664}} {
		t.Run(tt.umask, func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(tmp, "out")
			cmd := exec.Command("/bin/sh", "-c", "umask "+tt.umask+` && exec "$0" "$@"`, self,
				"convert", "--instances", "1", "-o", out, in)
			cmd.Env = append(os.Environ(), append(convertEnv(tmp), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))...)
			if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "2 converted") {
				t.Fatalf("convert under umask %s: %v\n%s", tt.umask, err, b)
			}
			for _, n := range []string{"report.pdf", "testPNG.pdf"} {
				fi, err := os.Stat(filepath.Join(out, n))
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != tt.want {
					t.Errorf("%s under umask %s: mode %#o, want %#o", n, tt.umask, fi.Mode().Perm(), tt.want)
				}
			}
		})
	}
}
