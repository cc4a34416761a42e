// Package ziptest reads a zip archive with Debian's unzip, as a person
// would, for the tests of the code that writes calq's zips. Entry point:
// Unzip (one unzip -l and one unzip -d, about 10 ms). Safe for concurrent
// use.
package ziptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/internal/tooltest"
)

// File is one entry as unzip shows and extracts it.
type File struct {
	Name     string    // the name unzip -l shows, which is the extracted file's name
	Listed   time.Time // the date and time unzip -l shows, in UTC, to the minute
	Modified time.Time // the extracted file's modification time
	Body     []byte
}

// Unzip lists the zip archive zipped with unzip -l and extracts it with
// unzip into a new directory, in a UTF-8 locale and UTC (without a UTF-8
// locale unzip writes any non-ASCII name as #Uxxxx escapes, whoever made
// the zip). It fails the test when unzip fails or extracts other names
// than it lists; it skips without unzip, or fails under
// CALQ_REQUIRE_TOOLS=1.
func Unzip(t testing.TB, zipped []byte) []File {
	t.Helper()
	unzip := tooltest.Require(t, "unzip")
	dir := t.TempDir()
	path := filepath.Join(dir, "archive.zip")
	if err := os.WriteFile(path, zipped, 0o600); err != nil {
		t.Fatal(err)
	}
	files := list(t, unzip, path)
	out := filepath.Join(dir, "out")
	run(t, unzip, "-q", path, "-d", out)
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	for i, f := range files {
		want = append(want, f.Name)
		p := filepath.Join(out, f.Name)
		if files[i].Body, err = os.ReadFile(p); err != nil {
			continue // reported below
		}
		fi, _ := os.Stat(p)
		files[i].Modified = fi.ModTime()
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("unzip extracted %q, want the names it lists: %q", got, want)
	}
	return files
}

// listed is a line of unzip -l: length, date and time, name.
var listed = regexp.MustCompile(`^\s*\d+\s+(\d{4}-\d{2}-\d{2} \d{2}:\d{2})   (.+)$`)

// list runs unzip -l and returns its entries.
func list(t testing.TB, unzip, path string) []File {
	t.Helper()
	out := run(t, unzip, "-l", path)
	var files []File
	for _, line := range strings.Split(out, "\n") {
		m := listed.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, err := time.Parse("2006-01-02 15:04", m[1])
		if err != nil {
			t.Fatalf("unzip -l shows an impossible date (a zero MS-DOS date?): %q: %v", line, err)
		}
		files = append(files, File{Name: m[2], Listed: at})
	}
	if len(files) == 0 {
		t.Fatalf("unzip -l lists no file:\n%s", out)
	}
	return files
}

// run runs unzip with args in a UTF-8 locale and UTC, and returns what
// it printed.
func run(t testing.TB, unzip string, args ...string) string {
	t.Helper()
	cmd := exec.Command(unzip, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "TZ=UTC")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("unzip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
