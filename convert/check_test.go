package convert

import (
	"errors"
	"strings"
	"testing"

	"calq/convert/lo"
	"calq/convert/pdf"
)

// TestOptionsCheck: Check refuses what no conversion may be asked, every
// problem on a line of its own, as a usage error.
func TestOptionsCheck(t *testing.T) {
	owner := &pdf.Encryption{OwnerPassword: "secret"}
	tests := []struct {
		name string
		o    Options
		want string // "" for none
	}{
		{"plain", Options{Inputs: []string{"in"}, Out: "out"}, ""},
		{"PDF/A alone", Options{PDFA: 3}, ""},
		{"bad glob", Options{Include: []string{"["}}, "--include/--exclude: "},
		{"negative", Options{SharedJobs: -1}, "--timeout, --retries, --instances, --jobs and --memory-limit must not be negative"},
		{"PDF/A level", Options{PDFA: 4}, "--pdfa: 4, want 1, 2 or 3"},
		{"no owner password", Options{Post: pdf.Post{Encrypt: &pdf.Encryption{}}},
			"--encrypt: needs an owner password: --owner-password-file FILE or CALQ_OWNER_PASSWORD"},
		{"PDF/A and encryption", Options{PDFA: 1, Post: pdf.Post{Encrypt: owner}},
			"--pdfa and --encrypt: encryption breaks PDF/A conformance; choose one"},
		{"PDF/A and merge", Options{PDFA: 2, Merge: "all.pdf", Post: pdf.Post{Optimize: true}},
			"--pdfa and --merge: calq convert merges after each file's PDF/A export, and the merge is not PDF/A; choose one"},
		// The pages' changes come before LibreOffice's PDF/A export, as
		// on calq serve's routes (pdf.AroundPDFA).
		{"PDF/A and the pages' changes", Options{PDFA: 2, Post: pdf.Post{Optimize: true, Flatten: true,
			Watermark: &pdf.Watermark{Text: "DRAFT"}, Rotate: &pdf.Rotation{Angle: 90}}}, ""},
		{"PDF/A-1 and a rotation", Options{PDFA: 1, Post: pdf.Post{Optimize: true, Rotate: &pdf.Rotation{Angle: 90}}}, ""},
		{"PDF/A-1 and a watermark", Options{PDFA: 1, Post: pdf.Post{Watermark: &pdf.Watermark{Text: "DRAFT"}}},
			"--pdfa 1 and a watermark or stamp: PDF/A-1 forbids their transparency"},
		{"PDF/A, a watermark and the shared queue", Options{Shared: stubShared{}, PDFA: 2, Post: pdf.Post{Watermark: &pdf.Watermark{Text: "X"}}},
			"--pdfa, post-processing and the shared queue: the workers export the PDF/A"},
		{"PDF/A-2 and metadata", Options{PDFA: 2, Post: pdf.Post{Metadata: &pdf.Metadata{Title: "T"}}}, ""},
		{"PDF/A-1 and metadata", Options{PDFA: 1, Post: pdf.Post{Metadata: &pdf.Metadata{Title: "T"}}},
			"--pdfa 1 and --title, --author, --subject or --keywords: calq writes them after the PDF/A export, " +
				"and that rewrite (PDF 1.7, object streams) is not PDF/A-1; use --pdfa 2 or 3"},
		{"input outside the share", Options{Inputs: []string{"/etc"}, SharedRoot: t.TempDir()}, "/etc: "},
		{"export options", Options{Export: lo.Export{Quality: 80, PageRanges: "1-2", Password: "x"}}, ""},
		{"export quality", Options{Export: lo.Export{Quality: 101}}, "quality 101: want 1 to 100"},
		{"export page ranges", Options{Export: lo.Export{PageRanges: "x"}}, `nativePageRanges "x": want`},
		{"shared export", Options{Shared: stubShared{}, Export: lo.Export{Quality: 80}}, ""},
		{"shared document password", Options{Shared: stubShared{}, Export: lo.Export{Password: "x"}}, "a document password and the shared queue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Check()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want nil", err)
			case tt.want == "":
				return
			case !errors.Is(err, ErrUsage):
				t.Fatalf("got %v, want an error wrapping ErrUsage", err)
			case !strings.HasPrefix(err.Error(), tt.want):
				t.Errorf("got %q, want it to begin %q", err, tt.want)
			}
		})
	}
}
