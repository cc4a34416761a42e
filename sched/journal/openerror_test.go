package journal

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"calq/sched"
)

// TestJournalFilesPrivate: a new journal and its -wal and -shm files are
// 0600 under umask 022: job payloads name the user's files.
func TestJournalFilesPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "state", "calq.db")
	j, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Enqueue(context.Background(), []*sched.Job{{Key: "k", Kind: "k"}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %#o, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Errorf("the journal's new directory has mode %#o, want 0700", fi.Mode().Perm())
	}
}

// TestOpenExplains: a journal that is not one, or is damaged, or is
// locked, gives one line naming the path and what is wrong, with a hint;
// nothing overwrites it.
func TestOpenExplains(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "random.db")
	os.WriteFile(notDB, []byte(strings.Repeat("not a database at all ", 300)), 0o600)

	// A journal whose schema page is overwritten: corrupt.
	damaged := filepath.Join(dir, "damaged.db")
	j, err := Open(context.Background(), damaged, Options{})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	b, _ := os.ReadFile(damaged)
	for i := 100; i < min(len(b), 4096); i++ {
		b[i] = 0xff
	}
	os.WriteFile(damaged, b, 0o600)

	tests := []struct {
		path, what, hint string
		is               error
	}{
		{notDB, "is not a calq journal", "restore it from a backup", ErrNotJournal},
		{damaged, "", "--db", nil},
	}
	for _, tt := range tests {
		before, _ := os.ReadFile(tt.path)
		_, err := Open(context.Background(), tt.path, Options{})
		var oe *OpenError
		if !errors.As(err, &oe) {
			t.Errorf("Open(%s) = %v, want an *OpenError", filepath.Base(tt.path), err)
			continue
		}
		if !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.what) || !strings.Contains(oe.Hint(), tt.hint) {
			t.Errorf("Open(%s) = %q, hint %q; want the path, %q and a hint with %q", filepath.Base(tt.path), err, oe.Hint(), tt.what, tt.hint)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("Open(%s) = %v, want errors.Is %v", filepath.Base(tt.path), err, tt.is)
		}
		if after, _ := os.ReadFile(tt.path); string(after) != string(before) {
			t.Errorf("Open(%s) changed the file", filepath.Base(tt.path))
		}
	}
}

// TestOpenLocked: another process holding an exclusive lock past the busy
// timeout gives "is locked by another process", not a raw SQLite error.
func TestOpenLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the busy timeout")
	}
	path := filepath.Join(t.TempDir(), "calq.db")
	j, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	// Another connection in rollback-journal mode holds EXCLUSIVE.
	db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA journal_mode=DELETE"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("ROLLBACK")
	_, err = Open(context.Background(), path, Options{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "is locked by another process") {
		t.Errorf("Open of a locked journal = %v, want %v", err, ErrLocked)
	}
}

// TestOpenReadOnly: a journal on a read-only file system says it cannot
// be written. It needs a read-only bind mount, so root.
func TestOpenReadOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "calq.db")
	j, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if out, err := exec.Command("mount", "--bind", "-o", "ro", dir, dir).CombinedOutput(); err != nil {
		if os.Getenv("CALQ_REQUIRE_TOOLS") != "" && os.Geteuid() == 0 {
			t.Fatalf("read-only bind mount: %v: %s", err, out)
		}
		t.Skipf("no read-only bind mount here: %v: %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	_, err = Open(context.Background(), path, Options{})
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "cannot be written") {
		t.Errorf("Open on a read-only file system = %v, want %v", err, ErrReadOnly)
	}
}

// TestOpenNotRegular: a journal path that is a device (CALQ_DB=/dev/null),
// a FIFO, a directory or a link to a device is refused before SQLite
// opens it: no "-journal" or "-wal" file beside it, the node unchanged,
// no hang on the FIFO. An empty path (no home) is refused with a hint.
func TestOpenNotRegular(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]string{"fifo": filepath.Join(dir, "fifo"), "dir": filepath.Join(dir, "dir")}
	if err := syscall.Mkfifo(paths["fifo"], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(paths["dir"], 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		paths["device"] = filepath.Join(dir, "null")
		if err := syscall.Mknod(paths["device"], syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Fatal(err)
		}
		paths["link"] = filepath.Join(dir, "link")
		if err := os.Symlink(paths["device"], paths["link"]); err != nil {
			t.Fatal(err)
		}
	}
	for name, p := range paths {
		t.Run(name, func(t *testing.T) {
			before, _ := os.Lstat(p)
			_, err := Open(context.Background(), p, Options{})
			var oe *OpenError
			if !errors.As(err, &oe) || oe.Path != p || !strings.HasSuffix(oe.What, ", not a regular file") || oe.Hint() == "" {
				t.Fatalf("Open(%s) = %v, want an OpenError saying it is not a regular file, with a hint", p, err)
			}
			if after, err := os.Lstat(p); err != nil || after.Mode() != before.Mode() {
				t.Errorf("%s: %v became %v (%v)", p, before.Mode(), after.Mode(), err)
			}
			for _, s := range []string{"-journal", "-wal", "-shm"} {
				if _, err := os.Lstat(p + s); err == nil {
					t.Errorf("%s%s made", p, s)
				}
			}
		})
	}
	_, err := Open(context.Background(), "", Options{})
	var oe *OpenError
	if !errors.As(err, &oe) || !errors.Is(err, ErrNoPath) || !strings.Contains(oe.Hint(), "--db or CALQ_DB") {
		t.Errorf(`Open("") = %v, want ErrNoPath with a hint naming --db or CALQ_DB`, err)
	}
}
