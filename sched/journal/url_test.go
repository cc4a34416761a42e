package journal

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestOpenURL: a database URL is refused, not taken for a path: no
// directory named "postgres:" appears, and the password is not shown.
func TestOpenURL(t *testing.T) {
	t.Chdir(t.TempDir())
	_, err := Open(context.Background(), "postgres://calq:secret@db/calq", Options{})
	if err == nil || !strings.Contains(err.Error(), "a database URL, not a file") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Open(URL) = %v, want a refusal without the password", err)
	}
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Errorf("Open(URL) left %v", ents)
	}
}
