package mail

import (
	"slices"
	"testing"
)

// TestAttachmentNames: the path below the output directory, "/" as "_",
// a file elsewhere by its base name, a name taken twice numbered.
func TestAttachmentNames(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"below out", []string{"/out/a/report.pdf", "/out/b/report.pdf"}, []string{"a_report.pdf", "b_report.pdf"}},
		{"elsewhere", []string{"/tmp/merged.pdf"}, []string{"merged.pdf"}},
		{"taken", []string{"/out/a_b.pdf", "/out/a/b.pdf"}, []string{"a_b.pdf", "a_b (2).pdf"}},
		{"case", []string{"/out/X.pdf", "/x.pdf"}, []string{"X.pdf", "x (2).pdf"}},
	}
	for _, tt := range tests {
		if got := AttachmentNames("/out", tt.files); !slices.Equal(got, tt.want) {
			t.Errorf("%s: AttachmentNames = %q, want %q", tt.name, got, tt.want)
		}
	}
}
