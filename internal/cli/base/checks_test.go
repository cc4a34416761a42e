package base

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChecks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		want string // "" for none; else a part of the message
	}{
		{"dir: existing", CheckDirWritable("--out", dir), ""},
		{"dir: to create", CheckDirWritable("--out", filepath.Join(dir, "a", "b")), ""},
		{"dir: a file", CheckDirWritable("--out", file), "--out " + file + ": is a file; give a directory"},
		{"dir: below a file", CheckDirWritable("--out", filepath.Join(file, "x")), "is a file, not a directory"},
		{"file: new", CheckFileWritable("--merge", filepath.Join(dir, "new.pdf")), ""},
		{"file: existing", CheckFileWritable("--merge", file), ""},
		{"file: a directory", CheckFileWritable("--merge", dir), "--merge "},
		{"file: no directory", CheckFileWritable("--merge", filepath.Join(dir, "no", "x.pdf")), "no directory"},
		{"program: on PATH", CheckProgram("--shell", "sh"), ""},
		{"program: empty", CheckProgram("--shell", ""), "--shell: empty; give a program"},
		{"program: missing", CheckProgram("--shell", filepath.Join(dir, "nosh")), "no such program"},
		{"device: a tty", CheckDevice("--device", "/dev/null"), ""},
		{"device: missing", CheckDevice("--device", filepath.Join(dir, "ttyX")), "no such device"},
		{"device: a regular file", CheckDevice("--device", file), "a regular file, not a serial device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			switch {
			case tt.want == "" && tt.err != nil:
				t.Errorf("got %v, want none", tt.err)
			case tt.want != "" && (tt.err == nil || !strings.Contains(tt.err.Error(), tt.want)):
				t.Errorf("got %v, want an error containing %q", tt.err, tt.want)
			}
		})
	}
	var h *Hinted
	if err := CheckTarget("--merge", dir); !errors.As(err, &h) || !strings.Contains(h.Hint(), "leave --merge out") {
		t.Errorf("CheckTarget of a directory = %#v, want a *Hinted saying to leave --merge out", err)
	}
}
