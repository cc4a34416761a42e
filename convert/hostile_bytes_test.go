package convert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"calq/internal/bytestr"
)

// TestSharedPayloadBytes: a file name that is not UTF-8 travels through a
// shared job's JSON payload as its bytes, so that the worker opens that
// file on the share, and history shows the source it was.
func TestSharedPayloadBytes(t *testing.T) {
	root := t.TempDir()
	name := "caf\xe9 \x80\xff.txt" // Latin-1 and bytes no encoding decodes
	if err := os.WriteFile(filepath.Join(root, name), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A neighbour with the name json.Marshal would have made of it.
	if err := os.WriteFile(filepath.Join(root, "caf\uFFFD \uFFFD\uFFFD.txt"), []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("hello"))
	b, err := json.Marshal(sharedPayload{Source: bytestr.String("/srv/" + name), Name: bytestr.String("in-" + name), Path: bytestr.String(name),
		Input: hex.EncodeToString(sum[:]), Kind: 1})
	if err != nil {
		t.Fatal(err)
	}
	var p sharedPayload
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("the worker's side: %v", err)
	}
	if string(p.Path) != name || string(p.Source) != "/srv/"+name || string(p.Name) != "in-"+name {
		t.Errorf("payload %s came back as path %q, source %q, name %q", b, p.Path, p.Source, p.Name)
	}
	in := filepath.Join(t.TempDir(), "in.txt")
	w := &SharedWorker{SharedRoot: root}
	if err := w.input(context.Background(), p, in); err != nil {
		t.Fatalf("input: %v", err)
	}
	if got, _ := os.ReadFile(in); string(got) != "hello" {
		t.Errorf("the worker read %q, want the submitted file's \"hello\"", got)
	}
}
