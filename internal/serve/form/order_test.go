package form

import (
	"slices"
	"testing"
)

func TestSortFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"plain names", []string{"b.pdf", "a.pdf", "B.pdf"}, []string{"B.pdf", "a.pdf", "b.pdf"}},
		{"leading numbers as numbers", []string{"10 ten.pdf", "2 two.pdf", "1 one.pdf", "02 two.docx"},
			[]string{"1 one.pdf", "02 two.docx", "2 two.pdf", "10 ten.pdf"}},
		{"numbered before unnumbered", []string{"zeta.pdf", "alpha.pdf", "z9.pdf"}, []string{"z9.pdf", "alpha.pdf", "zeta.pdf"}},
		{"number before the extension", []string{"scan_10.pdf", "scan_2.pdf", "scan_1.pdf", "page_3.pdf"},
			[]string{"page_3.pdf", "scan_1.pdf", "scan_2.pdf", "scan_10.pdf"}},
		{"trailing number without extension", []string{"part11", "part3", "part1"}, []string{"part1", "part3", "part11"}},
		{"chromiumly's names", []string{"file10.docx", "file02.docx", "file01.docx"}, []string{"file01.docx", "file02.docx", "file10.docx"}},
		{"long numbers", []string{"245654773395259", "245654773394369", "99999999999999999999999"},
			[]string{"245654773394369", "245654773395259", "99999999999999999999999"}},
		{"different stems compare by stem", []string{"Report_P0007104.pdf", "Bundle-25029.pdf"},
			[]string{"Bundle-25029.pdf", "Report_P0007104.pdf"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := make([]File, len(tc.in))
			for i, n := range tc.in {
				files[i] = File{Name: n}
			}
			sortFiles(files)
			var got []string
			for _, f := range files {
				got = append(got, f.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("order %q, want %q", got, tc.want)
			}
		})
	}
}

// Equal names keep their upload order, which is their disk names' order.
func TestSortFilesStable(t *testing.T) {
	files := []File{{Name: "b.pdf", Path: "1"}, {Name: "a.pdf", Path: "2"}, {Name: "b.pdf", Path: "3"}, {Name: "a.pdf", Path: "4"}}
	sortFiles(files)
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if want := []string{"2", "4", "1", "3"}; !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}
