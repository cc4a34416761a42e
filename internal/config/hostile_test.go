package config

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"calq/internal/fsio"
)

// hostileFiles are what CALQ_CONFIG, --config, a password_file or a
// pin_file may name: each must fail at once, naming the file, never hang
// (a FIFO with no writer) nor run out of memory (/dev/zero, 1 GiB).
func hostileFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o600))
	sparse := filepath.Join(dir, "sparse")
	must(t, exec.Command("truncate", "-s", "1G", sparse).Run())
	return map[string]string{"/dev/zero": "/dev/zero", "fifo": fifo, "sparse": sparse, "dir": dir}
}

// TestReadHostile: the config file and a secret file (password_file,
// pin_file) alike.
func TestReadHostile(t *testing.T) {
	load := func(p string) error { _, err := Load(p); return err }
	secret := func(p string) error { _, err := ReadSecret(p); return err }
	for _, r := range []struct {
		name  string
		read  func(string) error
		limit int64
	}{{"Load", load, fsio.ConfigLimit}, {"ReadSecret", secret, fsio.SecretLimit}} {
		for name, path := range hostileFiles(t) {
			t.Run(r.name+"/"+name, func(t *testing.T) {
				err := r.read(path)
				var tl *fsio.TooLargeError
				if err == nil || !strings.Contains(err.Error(), path) ||
					!(errors.Is(err, fsio.ErrNotRegular) || errors.As(err, &tl) && tl.Limit == r.limit) {
					t.Errorf("%s(%s) = %v, want ErrNotRegular or the %s limit, naming it", r.name, path, err, fsio.Size(r.limit))
				}
			})
		}
	}
}

// TestDepth: nesting past MaxDepth, by arrays, inline tables or dotted
// keys, is refused with the line before the decoder recurses; brackets
// and dots inside strings and comments do not count.
func TestDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1)
	tests := []struct {
		name, data string
		line       int // 0: accepted by checkDepth
	}{
		{"arrays", "a = 1\nb = " + strings.Repeat("[", 200000), 2},
		{"inline tables", "x = " + strings.Repeat("{a = ", MaxDepth+1), 1},
		{"dotted keys", "[t]\n\n" + strings.Repeat("a.", MaxDepth+1) + "b = 1", 3},
		{"at the limit", "a = " + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), 0},
		{"in a string", `a = "` + deep + `"`, 0},
		{"in a literal string", `a = '` + deep + `'`, 0},
		{"in a multi-line string", "a = \"\"\"\n" + deep + "\n\"\"\"\nb = 1", 0},
		{"in a comment", "# " + deep + "\na = 1", 0},
		{"escaped quote", `a = "\"` + deep + `"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkDepth("c.toml", tt.data)
			if tt.line == 0 {
				if err != nil {
					t.Errorf("checkDepth = %v, want nil", err)
				}
				return
			}
			want := "c.toml:" + strconv.Itoa(tt.line) + ": nested deeper than 64 levels"
			if err == nil || err.Error() != want {
				t.Errorf("checkDepth = %v, want %q", err, want)
			}
		})
	}
	// Through Load: a file of 100000 '[' is that error, not a stack overflow.
	p := filepath.Join(t.TempDir(), "deep.toml")
	must(t, os.WriteFile(p, []byte("a = "+strings.Repeat("[", 100000)), 0o600))
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "nested deeper than 64 levels") {
		t.Errorf("Load(deep) = %v, want the nesting error", err)
	}
}
