package convert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"calq/convert/pdf"
)

// TestInputChangedWhilePlanned: the user's input changes between
// planning and conversion. The PDF is of the bytes converted, and its
// record says so: the next run finds it unchanged, not stale.
func TestInputChangedWhilePlanned(t *testing.T) {
	in := copyFiles(t, "video-001.tiff")
	scan := filepath.Join(in, "scan.tif")
	if err := os.Rename(filepath.Join(in, "video-001.tiff"), scan); err != nil {
		t.Fatal(err)
	}
	two, err := os.ReadFile(filepath.Join(testdata, "testTIFF_multipage.tif"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	store := newMemStore()
	o := Options{Inputs: []string{in}, Out: out, Store: store,
		Planned: func(int, int) {
			// Planned runs after the input was hashed for the plan.
			if err := os.WriteFile(scan, two, 0o644); err != nil {
				t.Error(err)
			}
		}}
	sum, err := Run(context.Background(), o)
	if err != nil || sum.Converted != 1 {
		t.Fatalf("first run: %+v, %v; want 1 converted", sum, err)
	}
	info, err := pdf.Inspect(filepath.Join(out, "scan.pdf"), "")
	if err != nil || info.Pages != 2 {
		t.Errorf("the PDF has %d pages (%v), want the 2 of the bytes converted", info.Pages, err)
	}
	rec, ok, _ := store.Record(context.Background(), filepath.Join(out, "scan.pdf"))
	h := sha256.Sum256(two)
	if !ok || rec.InputSum != hex.EncodeToString(h[:]) {
		t.Errorf("record %+v, want the digest of the bytes converted", rec)
	}
	o.Planned = nil
	sum, err = Run(context.Background(), o)
	if err != nil || sum.Skipped != 1 || sum.Converted != 0 {
		t.Errorf("second run: %+v, %v; want 1 skipped as unchanged", sum, err)
	}
}
