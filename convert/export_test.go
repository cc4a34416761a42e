package convert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/sniff"
	"calq/internal/tooltest"
	"calq/sched"
)

// TestFingerprintExport: LibreOffice's export options change the
// fingerprint, a password by its presence alone, and options without
// them keep the fingerprints of PDFs made before they existed.
func TestFingerprintExport(t *testing.T) {
	salt := []byte("0123456789abcdef")
	fp := func(o Options) string {
		t.Helper()
		s, err := fingerprint(context.Background(), o, salt)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Measured with the fingerprint of calq before Export.
	golden := []struct {
		name string
		o    Options
		want string
	}{
		{"zero", Options{}, "6733a776e2ab589d200994d3ad19f733228a2e6ee11ebfb9aa77f84dc25dd8be"},
		{"PDF/A-2", Options{PDFA: 2}, "8ced751e1b9dbd0c58937addc8806b108320ba913331c5cc28517f0eb07385e2"},
		{"optimize", Options{Post: pdf.Post{Optimize: true}}, "67ffbb70f80ddfb02f53db604edeb51d738b2894a80bc2bca5f99d93340e6e82"},
	}
	for _, tt := range golden {
		if got := fp(tt.o); got != tt.want {
			t.Errorf("%s: fingerprint %s, want %s as before Export", tt.name, got, tt.want)
		}
	}
	no := false
	distinct := []lo.Export{{}, {Landscape: true}, {PageRanges: "1-2"}, {PageRanges: "1-3"}, {PDFUA: true},
		{SinglePageSheets: true}, {ExportFormFields: &no}, {ExportBookmarks: &no}, {ExportNotes: true},
		{LosslessImageCompression: true}, {Quality: 50}, {MaxImageResolution: 75}, {Password: "a"},
		{ExportBookmarksToPdfDestination: true}, {NativeWatermarkText: "A"}, {NativeWatermarkText: "B"},
		{NativeWatermarkText: "A", NativeWatermarkColor: 1}, {NativeTiledWatermarkText: "A"},
		{Options: map[string]string{"zoom": "50"}}, {Options: map[string]string{"zoom": "60"}}, {UpdateIndexes: true}}
	seen := map[string]int{}
	for i, e := range distinct {
		s := fp(Options{Export: e})
		if j, ok := seen[s]; ok {
			t.Errorf("Export %v and %v have the same fingerprint", distinct[j], e)
		}
		seen[s] = i
	}
	if a, b := fp(Options{Export: lo.Export{Password: "a"}}), fp(Options{Export: lo.Export{Password: "b"}}); a != b {
		t.Error("the password's value changes the fingerprint; only its presence may")
	}
}

// stubShared is a Shared that Check only compares with nil.
type stubShared struct{ Shared }

// TestRunExport converts with export options on one pool: a run's
// password opens protected documents, which sniff otherwise rejects, and
// a wrong one fails them for good; a shared worker applies its job's
// options.
func TestRunExport(t *testing.T) {
	tooltest.Require(t, "soffice")
	pool, err := lo.New(context.Background(), lo.Options{Instances: 1, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	in := copyFiles(t, "protected/protected.docx", "protected/protected.odt")
	t.Run("right password", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		sum, got, err := collect(t, Options{Inputs: []string{in}, Out: out, Pool: pool, Export: lo.Export{Password: "calq"}})
		if err != nil || sum.Converted != 2 {
			t.Fatalf("Run = %+v, %v, want 2 converted (%+v)", sum, err, got)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		_, got, _ := collect(t, Options{Inputs: []string{in}, Out: out, Pool: pool, Export: lo.Export{Password: "nope-nope"}})
		for _, f := range []string{"protected.docx", "protected.odt"} {
			r := got[f]
			if r.State != StateFailed || !r.Permanent || r.Reason != "the password does not open the document" || strings.Contains(r.Reason, "nope-nope") {
				t.Errorf("%s: %+v, want a permanent failure for the wrong password, without it", f, r)
			}
		}
	})
	t.Run("an encryption LibreOffice does not know", func(t *testing.T) {
		gcm := copyFiles(t, "protected/gcm.odt")
		for _, pw := range []string{"calq", "nope-nope"} {
			_, got, _ := collect(t, Options{Inputs: []string{gcm}, Out: filepath.Join(t.TempDir(), "out"), Pool: pool,
				Export: lo.Export{Password: pw}})
			r := got["gcm.odt"]
			if want := "the document is encrypted in a way LibreOffice cannot open, whatever the password"; r.State != StateFailed ||
				!r.Permanent || r.Reason != want {
				t.Errorf("gcm.odt with password %q: %+v, want a permanent failure saying %q", pw, r, want)
			}
		}
	})
	t.Run("shared worker", func(t *testing.T) {
		root := t.TempDir()
		doc := "<?xml version=\"1.0\"?><office:document xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\"" +
			" xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" xmlns:style=\"urn:oasis:names:tc:opendocument:xmlns:style:1.0\"" +
			" xmlns:fo=\"urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0\" office:version=\"1.2\"" +
			" office:mimetype=\"application/vnd.oasis.opendocument.text\"><office:automatic-styles>" +
			"<style:style style:name=\"B\" style:family=\"paragraph\"><style:paragraph-properties fo:break-before=\"page\"/></style:style>" +
			"</office:automatic-styles><office:body><office:text><text:p>1</text:p><text:p text:style-name=\"B\">2</text:p>" +
			"<text:p text:style-name=\"B\">3</text:p><text:p text:style-name=\"B\">4</text:p></office:text></office:body></office:document>"
		if err := os.WriteFile(filepath.Join(root, "four.fodt"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(doc))
		payload, _ := json.Marshal(sharedPayload{Name: "four.fodt", Path: "four.fodt", Input: hex.EncodeToString(sum[:]),
			Kind: sniff.Office, Timeout: 60, Export: &lo.Export{PageRanges: "2-3"}})
		w, err := NewSharedWorkerOn(nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		w.SharedRoot = root
		job := &sched.Job{Key: "convert:four", Payload: payload}
		if err := w.Run(context.Background(), job); err != nil {
			t.Fatalf("SharedWorker.Run = %v", err)
		}
		n, err := api.PageCountFile(filepath.Join(root, sharedWork, sharedPDFName(job.Key)))
		if err != nil || n != 2 {
			t.Errorf("the worker's PDF: %d pages, %v; want 2 (pages 2-3 of 4)", n, err)
		}
		// The pool is the caller's: the worker's Close leaves it converting.
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "after.pdf")
		if err := pool.Instances()[0].Convert(context.Background(), filepath.Join(root, "four.fodt"), out, lo.ConvertOptions{}); err != nil {
			t.Errorf("the pool after the worker's Close: %v", err)
		}
	})
}
