package convert

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// shareWithLinks makes a share with a file, a directory, and symlinks to
// a secret outside it, to the file inside it, and to a directory outside.
func shareWithLinks(t *testing.T) (root, secret string) {
	t.Helper()
	root, out := t.TempDir(), t.TempDir()
	secret = filepath.Join(out, "secret.txt")
	for path, body := range map[string]string{secret: "secret", filepath.Join(root, "a.txt"): "inside"} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(root, "d"), 0o700)
	os.WriteFile(filepath.Join(root, "d", "b.txt"), []byte("below"), 0o600)
	for link, to := range map[string]string{"out.txt": secret, "in.txt": "a.txt", "outdir": out, "d/up.txt": "../a.txt"} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root, secret
}

// TestOpenBeneath: a path the queue names opens only below the share and
// through no symlink, with openat2 and with the walk that stands in for
// it on a kernel without.
func TestOpenBeneath(t *testing.T) {
	root, _ := shareWithLinks(t)
	tests := []struct {
		name, rel, want string
		symlink         bool // refused as a symlink
	}{
		{name: "file", rel: "a.txt", want: "inside"},
		{name: "below a directory", rel: "d/b.txt", want: "below"},
		{name: "symlink out", rel: "out.txt", symlink: true},
		{name: "symlink in", rel: "in.txt", symlink: true},
		{name: "through a symlinked directory", rel: "outdir/secret.txt", symlink: true},
		{name: "symlink up", rel: "d/up.txt", symlink: true},
		{name: "dot-dot", rel: "../secret.txt"},
		{name: "inner dot-dot", rel: "d/../a.txt"},
		{name: "absolute", rel: "/etc/passwd"},
		{name: "empty", rel: ""},
	}
	for _, walk := range []bool{false, true} {
		if walk {
			openat2 = func(int, string, *unix.OpenHow) (int, error) { return -1, unix.ENOSYS }
			t.Cleanup(func() { openat2 = unix.Openat2 })
		}
		for _, tt := range tests {
			f, err := openBeneath(root, tt.rel, unix.O_RDONLY)
			if tt.want == "" {
				if err == nil {
					f.Close()
					t.Errorf("walk %v, %s: opened %q, want an error", walk, tt.name, tt.rel)
				} else if tt.symlink != errors.Is(err, errSymlink) {
					t.Errorf("walk %v, %s: %v, want symlink %v", walk, tt.name, err, tt.symlink)
				}
				continue
			}
			if err != nil {
				t.Errorf("walk %v, %s: %v", walk, tt.name, err)
				continue
			}
			got, _ := io.ReadAll(f)
			f.Close()
			if string(got) != tt.want {
				t.Errorf("walk %v, %s: read %q, want %q", walk, tt.name, got, tt.want)
			}
		}
	}
}

// TestRemoveBeneath: removing a symlink on the share removes the link,
// never what it points to, and a directory reached through a symlink is
// refused.
func TestRemoveBeneath(t *testing.T) {
	root, secret := shareWithLinks(t)
	if err := removeBeneath(root, ".", "out.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, "out.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link is still there: %v", err)
	}
	if err := removeBeneath(root, "outdir", "secret.txt"); !errors.Is(err, errSymlink) {
		t.Errorf("remove through a symlinked directory: %v, want refused as a symlink", err)
	}
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("the file outside the share: %v, want it kept", err)
	}
}

// TestSharedWorkDirGroup: the share's calq directory and the PDFs in it
// are as open to the group as the share's root is, and no more.
func TestSharedWorkDirGroup(t *testing.T) {
	tests := []struct {
		name           string
		root           os.FileMode
		wantDir, wantF os.FileMode
	}{
		{name: "private", root: 0o700, wantDir: 0o700, wantF: 0o600},
		{name: "group", root: 0o770 | os.ModeSetgid, wantDir: 0o770 | os.ModeSetgid, wantF: 0o640},
		{name: "group reads", root: 0o750, wantDir: 0o750, wantF: 0o640},
	}
	for _, tt := range tests {
		root := t.TempDir()
		if err := os.Chmod(root, tt.root); err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(t.TempDir(), "x.pdf")
		os.WriteFile(src, []byte("%PDF-1.7\n"), 0o600)
		if err := writeShared(t.Context(), root, "x.pdf", src); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		dir, _ := os.Stat(filepath.Join(root, sharedWork))
		f, _ := os.Stat(filepath.Join(root, sharedWork, "x.pdf"))
		if got := dir.Mode() & (os.ModePerm | os.ModeSetgid); got != tt.wantDir {
			t.Errorf("%s: directory %v, want %v", tt.name, got, tt.wantDir)
		}
		if got := f.Mode().Perm(); got != tt.wantF {
			t.Errorf("%s: PDF %v, want %v", tt.name, got, tt.wantF)
		}
		if left, _ := os.ReadDir(filepath.Join(root, sharedWork)); len(left) != 1 {
			t.Errorf("%s: %d files in the calq directory, want the PDF alone", tt.name, len(left))
		}
	}
}

// TestShareIDSymlink: a share id that is a symlink is refused, not read:
// it could name a one-line file of the reading user's anywhere.
func TestShareIDSymlink(t *testing.T) {
	root, secret := shareWithLinks(t)
	os.Mkdir(filepath.Join(root, sharedWork), 0o700)
	if err := os.Symlink(secret, filepath.Join(root, sharedWork, "id")); err != nil {
		t.Fatal(err)
	}
	if id, err := ShareID(root); !errors.Is(err, errSymlink) {
		t.Errorf("ShareID: %q, %v; want refused as a symlink", id, err)
	}
}
