package journal

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestOpenURL: a database address, as a URL or a keyword/value string,
// is refused, not taken for a path: no directory named "postgres:" nor
// file named "host=..." appears, and the password is not shown.
func TestOpenURL(t *testing.T) {
	for _, db := range []string{"postgres://calq:secret@db/calq", "host=db user=calq password=secret dbname=calq",
		"host=db password='secret"} {
		t.Chdir(t.TempDir())
		_, err := Open(context.Background(), db, Options{})
		if err == nil || !strings.Contains(err.Error(), "a database address, not a file") || strings.Contains(err.Error(), "secret") {
			t.Fatalf("Open(%q) = %v, want a refusal without the password", db, err)
		}
		if ents, _ := os.ReadDir("."); len(ents) != 0 {
			t.Errorf("Open(%q) left %v", db, ents)
		}
	}
}
