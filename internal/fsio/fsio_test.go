package fsio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"calq/internal/tooltest"
)

// hostile makes the things a user may point calq at by mistake or on
// purpose, in a fresh directory: a FIFO with no writer, a directory, a
// sparse file far over any limit, a character device made with mknod
// (when root) and a symlink to it.
func hostile(t *testing.T) (dir string, paths map[string]string) {
	t.Helper()
	dir = t.TempDir()
	paths = map[string]string{
		"dev-zero": "/dev/zero",
		"fifo":     filepath.Join(dir, "fifo"),
		"dir":      filepath.Join(dir, "dir"),
		"sparse":   filepath.Join(dir, "sparse"),
	}
	if err := syscall.Mkfifo(paths["fifo"], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(paths["dir"], 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(paths["sparse"])
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if os.Geteuid() == 0 {
		null := filepath.Join(dir, "null")
		if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(mkdev(1, 3))); err != nil {
			t.Fatal(err)
		}
		paths["device"] = null
		paths["link-to-device"] = filepath.Join(dir, "link")
		if err := os.Symlink(null, paths["link-to-device"]); err != nil {
			t.Fatal(err)
		}
	}
	return dir, paths
}

func mkdev(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor)
}

func TestReadFile(t *testing.T) {
	dir, paths := hostile(t)
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("secret\n"), 0o600)
	exact := filepath.Join(dir, "exact")
	os.WriteFile(exact, make([]byte, SecretLimit), 0o600)
	over := filepath.Join(dir, "over")
	os.WriteFile(over, make([]byte, SecretLimit+1), 0o600)
	tests := []struct {
		name     string
		path     string
		tooLarge bool
		notReg   bool
		wantLen  int
	}{
		{name: "small", path: small, wantLen: 7},
		{name: "exactly the limit", path: exact, wantLen: SecretLimit},
		{name: "one byte over", path: over, tooLarge: true},
		{name: "sparse", path: paths["sparse"], tooLarge: true},
		{name: "/dev/zero", path: paths["dev-zero"], notReg: true},
		{name: "fifo", path: paths["fifo"], notReg: true},
		{name: "dir", path: paths["dir"], notReg: true},
		{name: "device", path: paths["device"], notReg: true},
		{name: "link to device", path: paths["link-to-device"], notReg: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == "" {
				tooltest.Unavailable(t, "needs root for mknod")
			}
			b, err := ReadFile(tt.path, SecretLimit)
			var tl *TooLargeError
			switch {
			case tt.tooLarge:
				if !errors.As(err, &tl) || tl.Limit != SecretLimit || tl.Path != tt.path {
					t.Fatalf("got %v, want a *TooLargeError for %s at 4 KiB", err, tt.path)
				}
				if want := tt.path + ": larger than 4 KiB"; err.Error() != want {
					t.Errorf("got %q, want %q", err, want)
				}
			case tt.notReg:
				if !errors.Is(err, ErrNotRegular) {
					t.Fatalf("got %v, want ErrNotRegular", err)
				}
			default:
				if err != nil || len(b) != tt.wantLen {
					t.Fatalf("got %d bytes, %v; want %d bytes", len(b), err, tt.wantLen)
				}
			}
		})
	}
}

func TestCheckTargetAndRename(t *testing.T) {
	dir, paths := hostile(t)
	regular := filepath.Join(dir, "regular")
	os.WriteFile(regular, []byte("old"), 0o600)
	linkToRegular := filepath.Join(dir, "link-regular")
	os.Symlink(regular, linkToRegular)
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "gone"), dangling)
	tests := []struct {
		name   string
		path   string
		notReg bool
	}{
		{name: "missing", path: filepath.Join(dir, "new")},
		{name: "regular", path: regular},
		{name: "link to regular", path: linkToRegular},
		{name: "dangling link", path: dangling},
		{name: "fifo", path: paths["fifo"], notReg: true},
		{name: "dir", path: paths["dir"], notReg: true},
		{name: "device", path: paths["device"], notReg: true},
		{name: "link to device", path: paths["link-to-device"], notReg: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == "" {
				tooltest.Unavailable(t, "needs root for mknod")
			}
			before, _ := os.Lstat(tt.path)
			tmp := filepath.Join(dir, "tmp-"+filepath.Base(tt.path))
			os.WriteFile(tmp, []byte("new"), 0o600)
			err := Rename(tmp, tt.path)
			if tt.notReg {
				if !errors.Is(err, ErrNotRegular) {
					t.Fatalf("got %v, want ErrNotRegular", err)
				}
				after, err := os.Lstat(tt.path)
				if err != nil || after.Mode() != before.Mode() {
					t.Fatalf("%s: mode %v became %v (%v): replaced", tt.path, before.Mode(), after.Mode(), err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			if b, _ := os.ReadFile(tt.path); string(b) != "new" {
				t.Errorf("got %q in %s, want %q", b, tt.path, "new")
			}
		})
	}
}

func TestReadAll(t *testing.T) {
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	_, err = ReadAll(zero, "standard input", TextLimit)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != "standard input: larger than 128 KiB" {
		t.Errorf("ReadAll(/dev/zero) = %v, want standard input: larger than 128 KiB", err)
	}
	b, err := ReadAll(strings.NewReader(strings.Repeat("x", TextLimit)), "stdin", TextLimit)
	if err != nil || len(b) != TextLimit {
		t.Errorf("ReadAll(the limit) = %d bytes, %v; want %d, nil", len(b), err, TextLimit)
	}
}

// TestOpenFIFO: Open of a FIFO waits for a writer, as os.Open does, but
// returns ctx's error when ctx ends first, without leaving its goroutine
// blocked; a writer that comes in time is read as usual.
func TestOpenFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if f, err := Open(ctx, fifo); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open(fifo, cancelled) = %v, %v; want context.Canceled", f, err)
	}
	wrote := make(chan error, 1)
	go func() { wrote <- os.WriteFile(fifo, []byte("echo hi\n"), 0o600) }()
	f, err := Open(context.Background(), fifo)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := ReadAll(f, fifo, 1<<10)
	if err != nil || string(b) != "echo hi\n" || <-wrote != nil {
		t.Errorf("read %q, %v; want the writer's line", b, err)
	}
}

func TestWriteFile(t *testing.T) {
	dir, paths := hostile(t)
	path := filepath.Join(dir, "f.toml")
	for _, data := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFile(path, []byte(data), 0o640); err != nil {
			t.Fatalf("WriteFile(%q) = %v", data, err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Errorf("after WriteFile(%q) the file holds %q, %v", data, got, err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("WriteFile(%q) mode = %v, %v, want 0640", data, fi.Mode(), err)
		}
	}
	// A directory, a FIFO are not replaced, and no temporary stays.
	for _, name := range []string{"dir", "fifo"} {
		if err := WriteFile(paths[name], []byte("x"), 0o600); !errors.Is(err, ErrNotRegular) {
			t.Errorf("WriteFile(%s) error = %v, want ErrNotRegular", name, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".calq-") {
			t.Errorf("WriteFile left %s", e.Name())
		}
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f"), nil, 0o600); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WriteFile in a missing directory error = %v, want ErrNotExist", err)
	}
}

// TestRenameAll: all are placed, or, when one cannot be, none.
func TestRenameAll(t *testing.T) {
	dir := t.TempDir()
	var from, to []string
	for _, n := range []string{"a", "b", "c"} {
		p := filepath.Join(dir, n)
		os.WriteFile(p, []byte(n), 0o600)
		from, to = append(from, p), append(to, filepath.Join(dir, "placed-"+n))
	}
	os.Mkdir(to[1], 0o700) // b cannot replace a directory
	if err := RenameAll(from, to); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("got %v, want ErrNotRegular for the directory", err)
	}
	if _, err := os.Stat(to[0]); !os.IsNotExist(err) {
		t.Errorf("%s placed before the failure stays: %v", to[0], err)
	}
	os.Remove(to[1])
	from[0] = filepath.Join(dir, "a")
	os.WriteFile(from[0], []byte("a"), 0o600)
	if err := RenameAll(from, to); err != nil {
		t.Fatal(err)
	}
	for i, p := range to {
		if b, err := os.ReadFile(p); err != nil || string(b) != "abc"[i:i+1] {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
}
