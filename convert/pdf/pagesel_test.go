package pdf

import (
	"errors"
	"reflect"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
)

// TestPageSelection reads the selections of every page field (splitSpan,
// rotatePages, watermarkPages, stampPages) for a 5-page document: pdfcpu's
// syntax, and qpdf's and pdftk's names of the last page and of pages
// counted from the end, which Gotenberg's other engines take.
func TestPageSelection(t *testing.T) {
	tests := []struct {
		sel  string
		want []int // nil: refused
	}{
		{"1-2,4", []int{1, 2, 4}},
		{"2-", []int{2, 3, 4, 5}},
		{"even", []int{2, 4}},
		{"1-,!3", []int{1, 2, 4, 5}},
		{"l", []int{5}},
		{"2-z", []int{2, 3, 4, 5}},
		{"2-end", []int{2, 3, 4, 5}},
		{"z", []int{5}},
		{"end", []int{5}},
		{"1,z", []int{1, 5}},
		{"r1", []int{5}},
		{"r2", []int{4}},
		{"1-r2", []int{1, 2, 3, 4}},
		{"2-r1", []int{2, 3, 4, 5}},
		{"r3-z", []int{3, 4, 5}},
		{"r2-end", []int{4, 5}},
		{"r1-z", []int{5}},
		{"z-end", []int{5}},
		{"1-z,!r1", []int{1, 2, 3, 4}},
		{" 2-z ", []int{2, 3, 4, 5}},
		{"r0", nil},
		{"r", nil},
		{"rr2", nil},
		{"z-1", nil},
		{"r2-3", nil},
		{"endz", nil},
		{"2-zz", nil},
		{"foo", nil},
		{"x3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			sel, err := pageSelection("splitSpan", tt.sel)
			if tt.want == nil {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != "splitSpan" || fe.Value != tt.sel {
					t.Fatalf("pageSelection(%q) = %v, %v, want a FieldError for splitSpan", tt.sel, sel, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("pageSelection(%q): %v", tt.sel, err)
			}
			set, err := api.PagesForPageSelection(5, sel, false, false)
			if err != nil {
				t.Fatalf("pdfcpu refuses %q (from %q): %v", sel, tt.sel, err)
			}
			if got := sortedSet(set); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("pages of %q = %v, want %v", tt.sel, got, tt.want)
			}
		})
	}
}

func sortedSet(set map[int]bool) []int {
	var pages []int
	for p := 1; p <= 5; p++ {
		if set[p] {
			pages = append(pages, p)
		}
	}
	return pages
}
