package sniff

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestTestdataMatchesSources checks that the corpus copies in testdata/convert
// are byte for byte the files SOURCES.md (the upstream record) describes.
func TestTestdataMatchesSources(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testdata, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| \\d+ \\| `([^`]+)` \\| (\\d+) \\|.*`([0-9a-f]{64})` \\|$")
	rows := row.FindAllSubmatch(src, -1)
	if len(rows) != len(corpusWant) {
		t.Errorf("SOURCES.md lists %d files, the corpus table in sniff_test.go %d", len(rows), len(corpusWant))
	}
	for _, m := range rows {
		name, size, sum := string(m[1]), string(m[2]), string(m[3])
		b, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := sha256.Sum256(b)
		if strconv.Itoa(len(b)) != size || hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: %d bytes, sha256 %x; SOURCES.md says %s bytes, %s", name, len(b), got, size, sum)
		}
	}
}
