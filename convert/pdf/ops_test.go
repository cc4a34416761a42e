package pdf

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// pageRotations returns the effective /Rotate of every page of path.
func pageRotations(t *testing.T, path string) []int {
	t.Helper()
	pc, err := readContext(path, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var rots []int
	for i := 1; i <= pc.PageCount; i++ {
		_, _, inh, err := pc.PageDict(i, false)
		if err != nil {
			t.Fatal(err)
		}
		rots = append(rots, inh.Rotate)
	}
	return rots
}

func TestPostCheck(t *testing.T) {
	tests := []struct {
		name  string
		post  Post
		field string // the FieldError's field; "" for another error
		ok    bool
	}{
		{"empty", Post{}, "", true},
		{"rotate 90 all", Post{Rotate: &Rotation{Angle: 90}}, "", true},
		{"rotate -270 some", Post{Rotate: &Rotation{Angle: -270, Pages: "1-2,even"}}, "", true},
		{"rotate 45", Post{Rotate: &Rotation{Angle: 45}}, "rotateAngle", false},
		{"rotate 0", Post{Rotate: &Rotation{}}, "rotateAngle", false},
		{"rotate 360", Post{Rotate: &Rotation{Angle: 360}}, "rotateAngle", false},
		{"rotate bad pages", Post{Rotate: &Rotation{Angle: 180, Pages: "one"}}, "rotatePages", false},
		{"watermark bad pages", Post{Watermark: &Watermark{Text: "x", Pages: "1-a"}}, "watermarkPages", false},
		{"stamp ok", Post{Stamp: &Watermark{Text: "PAID", Pages: "1"}}, "", true},
		{"stamp bad pages", Post{Stamp: &Watermark{Text: "x", Pages: "x"}}, "stampPages", false},
		{"stamp empty", Post{Stamp: &Watermark{}}, "", false},
		{"stamp bad style", Post{Stamp: &Watermark{Text: "x", Style: "nonsense:1"}}, "", false},
		{"stamp not latin-1", Post{Stamp: &Watermark{Text: "機密"}}, "", false},
		{"flatten", Post{Flatten: true}, "", true},
		{"metadata all", Post{Metadata: &Metadata{Creator: "c", Producer: "p", Trapped: "True", CreationDate: time.Now()},
			CustomMetadata: map[string]string{"Company": "ACME", "Dept.Name": "x"}}, "", true},
		{"custom alone", Post{CustomMetadata: map[string]string{"Company": "ACME"}}, "", true},
		{"trapped yes", Post{Metadata: &Metadata{Trapped: "yes"}}, "metadata", false},
		{"custom standard key", Post{CustomMetadata: map[string]string{"title": "x"}}, "metadata", false},
		{"custom empty key", Post{CustomMetadata: map[string]string{"": "x"}}, "metadata", false},
		{"custom space in key", Post{CustomMetadata: map[string]string{"My Key": "x"}}, "metadata", false},
		{"custom slash in key", Post{CustomMetadata: map[string]string{"a/b": "x"}}, "metadata", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.post.Check()
			if (err == nil) != tt.ok {
				t.Fatalf("Check() = %v, want ok %v", err, tt.ok)
			}
			var fe *FieldError
			if got := errors.As(err, &fe); got != (tt.field != "") || (got && fe.Field != tt.field) {
				t.Errorf("Check() = %v, want a FieldError for %q", err, tt.field)
			}
			if err != nil && Apply(context.Background(), testFile(t, "pages_3.pdf"), filepath.Join(t.TempDir(), "o.pdf"), tt.post) == nil {
				t.Error("Apply accepted what Check refuses")
			}
		})
	}
}

func TestApplyRotate(t *testing.T) {
	tests := []struct {
		name string
		rot  Rotation
		want []int
	}{
		{"all 90", Rotation{Angle: 90}, []int{90, 90, 90}},
		{"page 2 180", Rotation{Angle: 180, Pages: "2"}, []int{0, 180, 0}},
		{"odd -90", Rotation{Angle: -90, Pages: "odd"}, []int{270, 0, 270}},
		{"from 2 270", Rotation{Angle: 270, Pages: "2-"}, []int{0, 270, 270}},
		{"2 to qpdf's last 90", Rotation{Angle: 90, Pages: "2-z"}, []int{0, 90, 90}},
		{"pdftk's last 180", Rotation{Angle: 180, Pages: "end"}, []int{0, 0, 180}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			r := tt.rot
			if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, Post{Rotate: &r}); err != nil {
				t.Fatal(err)
			}
			if got := pageRotations(t, out); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rotations = %v, want %v", got, tt.want)
			}
			if hasWatermarks(t, out) {
				t.Error("a rotation alone added a watermark")
			}
		})
	}
}

// TestApplyStamp puts a watermark and a stamp on the same pages: the
// watermark's text comes before the page's, the stamp's after, even when
// the stamp does not say OnTop; Pages limits the stamp.
func TestApplyStamp(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.pdf")
	p := Post{Watermark: &Watermark{Text: "UNDER"}, Stamp: &Watermark{Text: "OVER", Pages: "1,3"}}
	if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, p); err != nil {
		t.Fatal(err)
	}
	text, err := Text(out, "")
	if err != nil {
		t.Fatal(err)
	}
	pages := strings.Split(strings.TrimRight(text, "\f"), "\f")
	if len(pages) != 3 {
		t.Fatalf("%d pages of text, want 3: %q", len(pages), text)
	}
	for i, page := range pages {
		under, own, over := strings.Index(page, "UNDER"), strings.Index(page, "Page "), strings.Index(page, "OVER")
		if under < 0 || own < under {
			t.Errorf("page %d %q: want UNDER before the page's text", i+1, page)
		}
		if stamped := i != 1; stamped != (over > own) {
			t.Errorf("page %d %q: stamped %v, want OVER after the page's text only on pages 1 and 3", i+1, page, stamped)
		}
	}
}

func TestApplyMetadataAll(t *testing.T) {
	created := time.Date(2019, 3, 4, 5, 6, 7, 0, time.FixedZone("", 2*3600))
	modified := time.Date(2024, 12, 31, 23, 59, 58, 0, time.UTC)
	m := Metadata{Title: "Titre é", Author: "Zoë", Subject: "S", Keywords: "a, b", Creator: "calq test",
		Producer: "Producteur ß", CreationDate: created, ModDate: modified, Trapped: "False"}
	custom := map[string]string{"Company": "ACME – 報告", "Dept.Name": "R&D"}
	want := map[string]string{"Title": "Titre é", "Author": "Zoë", "Subject": "S", "Keywords": "a, b", "Creator": "calq test",
		"Producer": "Producteur ß", "CreationDate": "2019-03-04T05:06:07+02:00", "ModDate": "2024-12-31T23:59:58Z",
		"Trapped": "False", "Company": "ACME – 報告", "Dept.Name": "R&D", "PageCount": "3"}
	tests := []struct {
		name string
		post Post
	}{
		{"plain", Post{Metadata: &m, CustomMetadata: custom}},
		{"then optimize", Post{Metadata: &m, CustomMetadata: custom, Optimize: true}},
		{"then encrypt", Post{Metadata: &m, CustomMetadata: custom, Encrypt: &Encryption{OwnerPassword: "ownér"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, tt.post); err != nil {
				t.Fatal(err)
			}
			got, err := ReadMetadata(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if got["PDFVersion"] == "" {
				t.Error("no PDFVersion")
			}
			info := inspect(t, out, "")
			if info.Title != m.Title || info.Encrypted != (tt.post.Encrypt != nil) {
				t.Errorf("Inspect = %+v", info)
			}
			if tt.post.Encrypt != nil && !info.AES256 {
				t.Error("not AES-256 encrypted")
			}
		})
	}
}

// TestApplyMetadataDatesOnly checks that the pdfcpu-owned keys alone are
// written without an ordinary metadata pass changing anything else.
func TestApplyMetadataDatesOnly(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.pdf")
	created := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := Apply(context.Background(), testFile(t, "testPDF.pdf"), out, Post{Metadata: &Metadata{CreationDate: created}}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMetadata(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if got["CreationDate"] != "2001-02-03T04:05:06Z" || got["Title"] != "Apache Tika - Apache Tika" {
		t.Errorf("metadata = %v", got)
	}
	if !strings.HasPrefix(got["Producer"], "pdfcpu") {
		t.Errorf("Producer = %q, want pdfcpu's", got["Producer"])
	}
}

func TestReadMetadataFailure(t *testing.T) {
	if _, err := ReadMetadata(context.Background(), testFile(t, "testPassword4Spaces.pdf")); !errors.Is(err, ErrEncrypted) {
		t.Errorf("encrypted: %v, want ErrEncrypted", err)
	}
	if _, err := ReadMetadata(context.Background(), testFile(t, "testPNG.png")); err == nil {
		t.Error("a PNG read as a PDF")
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadMetadata(cancelled, testFile(t, "pages_3.pdf")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestApplyOnlyOne checks that a Post with one field does that operation
// and leaves the rest alone: no watermark, no rotation, no encryption.
func TestApplyOnlyOne(t *testing.T) {
	tests := []struct {
		name      string
		post      Post
		watermark bool
		rotations []int
		encrypted bool
	}{
		{"watermark", Post{Watermark: &Watermark{Text: "W"}}, true, []int{0, 0, 0}, false},
		{"stamp", Post{Stamp: &Watermark{Text: "S"}}, true, []int{0, 0, 0}, false},
		{"rotate", Post{Rotate: &Rotation{Angle: 90}}, false, []int{90, 90, 90}, false},
		{"flatten", Post{Flatten: true}, false, []int{0, 0, 0}, false},
		{"metadata", Post{Metadata: &Metadata{Title: "T"}}, false, []int{0, 0, 0}, false},
		{"optimize", Post{Optimize: true}, false, []int{0, 0, 0}, false},
		{"encrypt", Post{Encrypt: &Encryption{OwnerPassword: "o"}}, false, []int{0, 0, 0}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, tt.post); err != nil {
				t.Fatal(err)
			}
			if got := hasWatermarks(t, out); got != tt.watermark {
				t.Errorf("watermarks %v, want %v", got, tt.watermark)
			}
			if got := pageRotations(t, out); !reflect.DeepEqual(got, tt.rotations) {
				t.Errorf("rotations = %v, want %v", got, tt.rotations)
			}
			info := inspect(t, out, "")
			if info.Encrypted != tt.encrypted || info.Pages != 3 {
				t.Errorf("Inspect = %+v, want encrypted %v", info, tt.encrypted)
			}
			if tt.post.Metadata == nil && info.Title != "" {
				t.Errorf("title %q set", info.Title)
			}
		})
	}
}

// TestPostJSON checks that the fields added for Gotenberg leave the JSON
// of a Post that does not use them as it was, since convert fingerprints
// its options with it.
func TestPostJSON(t *testing.T) {
	p := Post{Watermark: &Watermark{Text: "X"}, Metadata: &Metadata{Title: "T"}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Watermark":{"Text":"X","Image":"","Style":"","OnTop":false},"Metadata":{"Title":"T","Author":"","Subject":"","Keywords":""},"Optimize":false,"Encrypt":null}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant   %s", b, want)
	}
}

func TestSplitSpecCheck(t *testing.T) {
	tests := []struct {
		spec  SplitSpec
		field string // "" when valid
	}{
		{SplitSpec{Mode: "intervals", Span: "2"}, ""},
		{SplitSpec{Mode: "intervals", Span: " 1 "}, ""},
		{SplitSpec{Mode: "intervals", Span: "0"}, "splitSpan"},
		{SplitSpec{Mode: "intervals", Span: "-1"}, "splitSpan"},
		{SplitSpec{Mode: "intervals", Span: "foo"}, "splitSpan"},
		{SplitSpec{Mode: "intervals", Span: "1-2"}, "splitSpan"},
		{SplitSpec{Mode: "pages", Span: "1-2,4"}, ""},
		{SplitSpec{Mode: "pages", Span: "2-", Unify: true}, ""},
		{SplitSpec{Mode: "pages", Span: "even"}, ""},
		{SplitSpec{Mode: "pages", Span: ""}, "splitSpan"},
		{SplitSpec{Mode: "pages", Span: "foo"}, "splitSpan"},
		{SplitSpec{Mode: "pages", Span: "2-z", Unify: true}, ""},
		{SplitSpec{Mode: "pages", Span: "2-end", Unify: true}, ""},
		{SplitSpec{Mode: "pages", Span: "r0"}, "splitSpan"},
		{SplitSpec{Mode: "Pages", Span: "1"}, "splitMode"},
		{SplitSpec{Mode: "", Span: "1"}, "splitMode"},
	}
	for _, tt := range tests {
		err := tt.spec.Check()
		var fe *FieldError
		if tt.field == "" && err != nil || tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field) {
			t.Errorf("%+v.Check() = %v, want field %q", tt.spec, err, tt.field)
		}
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name  string
		spec  SplitSpec
		pages [][]string // per file, the "Page N" texts it holds
	}{
		{"intervals 2", SplitSpec{Mode: "intervals", Span: "2"}, [][]string{{"Page 1", "Page 2"}, {"Page 3"}}},
		{"intervals 1", SplitSpec{Mode: "intervals", Span: "1"}, [][]string{{"Page 1"}, {"Page 2"}, {"Page 3"}}},
		{"intervals 5", SplitSpec{Mode: "intervals", Span: "5"}, [][]string{{"Page 1", "Page 2", "Page 3"}}},
		{"pages 2-", SplitSpec{Mode: "pages", Span: "2-"}, [][]string{{"Page 2"}, {"Page 3"}}},
		{"pages out of order", SplitSpec{Mode: "pages", Span: "3,1"}, [][]string{{"Page 1"}, {"Page 3"}}},
		{"pages unify", SplitSpec{Mode: "pages", Span: "3,1", Unify: true}, [][]string{{"Page 1", "Page 3"}}},
		{"pages beyond the end", SplitSpec{Mode: "pages", Span: "2-9"}, [][]string{{"Page 2"}, {"Page 3"}}},
		{"pages 2-z unify (qpdf's last page)", SplitSpec{Mode: "pages", Span: "2-z", Unify: true}, [][]string{{"Page 2", "Page 3"}}},
		{"pages 2-end unify (pdftk's last page)", SplitSpec{Mode: "pages", Span: "2-end", Unify: true}, [][]string{{"Page 2", "Page 3"}}},
		{"pages r2 (second from the end)", SplitSpec{Mode: "pages", Span: "r2"}, [][]string{{"Page 2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			outs, err := Split(context.Background(), testFile(t, "pages_3.pdf"), dir, tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != len(tt.pages) {
				t.Fatalf("%d files %v, want %d", len(outs), outs, len(tt.pages))
			}
			var names []string
			for i, out := range outs {
				names = append(names, filepath.Base(out))
				if want := filepath.Join(dir, "pages_3_"+string(rune('0'+i))+".pdf"); out != want {
					t.Errorf("file %d = %s, want %s", i, out, want)
				}
				if got := inspect(t, out, "").Pages; got != len(tt.pages[i]) {
					t.Errorf("%s: %d pages, want %d", out, got, len(tt.pages[i]))
				}
				text, err := Text(out, "")
				if err != nil {
					t.Fatal(err)
				}
				for j, page := range strings.Split(strings.TrimRight(text, "\f"), "\f") {
					if j < len(tt.pages[i]) && !strings.Contains(page, tt.pages[i][j]) {
						t.Errorf("%s page %d: %q, want %q", filepath.Base(out), j+1, page, tt.pages[i][j])
					}
				}
			}
			onlyFiles(t, dir, names...)
		})
	}
}

func TestSplitFailure(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		in   string
		spec SplitSpec
		err  error
	}{
		{"encrypted", context.Background(), "testPassword4Spaces.pdf", SplitSpec{Mode: "intervals", Span: "1"}, ErrEncrypted},
		{"no page selected", context.Background(), "pages_3.pdf", SplitSpec{Mode: "pages", Span: "7-9"}, nil},
		{"bad spec", context.Background(), "pages_3.pdf", SplitSpec{Mode: "chapters", Span: "1"}, nil},
		{"not a pdf", context.Background(), "testPNG.png", SplitSpec{Mode: "intervals", Span: "1"}, nil},
		{"cancelled", cancelled, "pages_3.pdf", SplitSpec{Mode: "intervals", Span: "1"}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			outs, err := Split(tt.ctx, testFile(t, tt.in), dir, tt.spec)
			if err == nil || (tt.err != nil && !errors.Is(err, tt.err)) {
				t.Fatalf("Split = %v, %v; want error %v", outs, err, tt.err)
			}
			onlyFiles(t, dir)
		})
	}
}

func FuzzSplitSpec(f *testing.F) {
	for _, s := range []string{"1", "2", "0", "-3", "1-2,4", "2-", "even", "!3", "1-,n4", "odd,l", "", "x", "99999999999999999999"} {
		f.Add("pages", s, false)
		f.Add("intervals", s, true)
	}
	f.Fuzz(func(t *testing.T, mode, span string, unify bool) {
		s := SplitSpec{Mode: mode, Span: span, Unify: unify}
		err := s.Check()
		for _, count := range []int{1, 3, 10} {
			groups, gerr := s.groups(count)
			if err != nil {
				if gerr == nil {
					t.Fatalf("%+v: Check fails (%v) but groups gives %v", s, err, groups)
				}
				continue
			}
			if gerr != nil {
				continue // a valid selection may select none of the pages
			}
			last := 0
			for _, g := range groups {
				if len(g) == 0 {
					t.Fatalf("%+v: empty group in %v", s, groups)
				}
				for _, p := range g {
					if p <= last || p > count {
						t.Fatalf("%+v of %d pages: groups %v not ascending within 1..%d", s, count, groups, count)
					}
					last = p
				}
			}
			if mode == SplitIntervals && last != count {
				t.Fatalf("%+v of %d pages: groups %v miss pages", s, count, groups)
			}
		}
	})
}

// TestMetadataControlCharacters: a value with a line break or another
// control character would end early in a reader's listing and forge a
// key after it; Check and Apply refuse it, naming the key.
func TestMetadataControlCharacters(t *testing.T) {
	tests := []struct {
		name string
		post Post
		key  string
	}{
		{"newline in title", Post{Metadata: &Metadata{Title: "Sample\nAuthor=Mallory"}}, "Title"},
		{"carriage return in author", Post{Metadata: &Metadata{Author: "A\rB"}}, "Author"},
		{"NUL in keywords", Post{Metadata: &Metadata{Keywords: "a\x00b"}}, "Keywords"},
		{"newline in producer", Post{Metadata: &Metadata{Producer: "p\n"}}, "Producer"},
		{"tab in creator", Post{Metadata: &Metadata{Creator: "c\td"}}, "Creator"},
		{"C1 in subject", Post{Metadata: &Metadata{Subject: "s\u0085t"}}, "Subject"},
		{"newline in a custom value", Post{CustomMetadata: map[string]string{"Company": "ACME\nTitle: forged"}}, "Company"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.post.Check()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "metadata" || fe.Value != tt.key {
				t.Fatalf("Check() = %v, want a FieldError for metadata naming %s", err, tt.key)
			}
			out := filepath.Join(t.TempDir(), "o.pdf")
			if Apply(context.Background(), testFile(t, "pages_3.pdf"), out, tt.post) == nil {
				t.Error("Apply accepted what Check refuses")
			}
			mustNotExist(t, out)
		})
	}
}

func TestMetadataMarked(t *testing.T) {
	for _, marked := range []string{"true", "false"} {
		t.Run(marked, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o.pdf")
			if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, Post{Metadata: &Metadata{Marked: marked}}); err != nil {
				t.Fatal(err)
			}
			m, err := ReadMetadata(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			if m["Marked"] != marked {
				t.Errorf("got Marked %q, want %q", m["Marked"], marked)
			}
		})
	}
	if err := (Post{Metadata: &Metadata{Marked: "yes"}}).Check(); err == nil {
		t.Error("Check() accepted Marked yes")
	}
}

// TestApplySeveralMarks: every watermark and stamp of a request lands,
// the watermarks under the page's own text, the stamps over it.
func TestApplySeveralMarks(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.pdf")
	style := "rotation:0, scalefactor:0.2 abs, position:"
	p := Post{
		Watermark: &Watermark{Text: "WONE", Style: style + "tl"}, Watermarks: []Watermark{{Text: "WTWO", Style: style + "br"}},
		Stamp: &Watermark{Text: "SONE", Style: style + "tr"}, Stamps: []Watermark{{Text: "STWO", Style: style + "bl", OnTop: false}},
	}
	if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, p); err != nil {
		t.Fatal(err)
	}
	text, err := Text(out, "")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Split(text, "\f")[0]
	own := strings.Index(page, "Page ")
	for _, w := range []string{"WONE", "WTWO"} {
		if i := strings.Index(page, w); i < 0 || i > own {
			t.Errorf("page 1 %q: want %s before the page's text", page, w)
		}
	}
	for _, s := range []string{"SONE", "STWO"} {
		if i := strings.Index(page, s); i < own {
			t.Errorf("page 1 %q: want %s after the page's text", page, s)
		}
	}
}
