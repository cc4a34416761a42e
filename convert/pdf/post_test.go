package pdf

import (
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

func hasWatermarks(t *testing.T, path string) bool {
	t.Helper()
	f := openFile(t, path)
	ok, err := api.HasWatermarks(f, newConf(""))
	if err != nil {
		t.Fatalf("HasWatermarks(%s): %v", path, err)
	}
	return ok
}

func TestApplyWatermark(t *testing.T) {
	img := writeImage(t, t.TempDir(), "logo.png", testImage(40, 20), png.Encode)
	tests := []struct {
		name  string
		wm    Watermark
		text  string // "" for images
		below bool   // the text comes before the page's own text
	}{
		{"text behind", Watermark{Text: "CONFIDENTIAL"}, "CONFIDENTIAL", true},
		{"text stamp", Watermark{Text: "TOP SECRET", OnTop: true}, "TOP SECRET", false},
		{"styled", Watermark{Text: "Brouillon é", Style: "points:20, color:#FF0000, position:bl, rotation:0"}, "Brouillon é", true},
		{"png", Watermark{Image: img}, "", false},
		{"png stamp", Watermark{Image: img, OnTop: true, Style: "scalefactor:0.2 rel, position:tr"}, "", false},
		{"gif", Watermark{Image: testFile(t, "testGIF.gif")}, "", false},
		{"pdf page", Watermark{Image: testFile(t, "testPDF.pdf")}, "Apache Tika", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.pdf")
			wm := tt.wm
			if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, Post{Watermark: &wm}); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if got := inspect(t, out, "").Pages; got != 3 {
				t.Errorf("pages = %d, want 3", got)
			}
			if !hasWatermarks(t, out) {
				t.Error("pdfcpu finds no watermark in the output")
			}
			onlyFiles(t, dir, "out.pdf")
			if tt.text == "" {
				return
			}
			text, err := Text(out, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, page := range strings.Split(text, "\f") {
				wmAt, pageAt := strings.Index(page, tt.text), strings.Index(page, "Page ")
				if wmAt < 0 || pageAt < 0 || (wmAt < pageAt) != tt.below {
					t.Errorf("page text %q: want %q %s the page's text", page, tt.text, map[bool]string{true: "before", false: "after"}[tt.below])
				}
			}
		})
	}
}

func TestApplyMetadata(t *testing.T) {
	tests := []struct {
		name string
		file string
		meta Metadata
		want Info
	}{
		{"all fields", "pages_3.pdf",
			Metadata{Title: "Größe – 報告", Author: "Zoë", Subject: "Quarterly", Keywords: "alpha, beta"},
			Info{Title: "Größe – 報告", Author: "Zoë", Subject: "Quarterly", Keywords: "alpha, beta"}},
		{"author only keeps the title", "testPDF.pdf",
			Metadata{Author: "Someone Else"},
			Info{Title: "Apache Tika - Apache Tika", Author: "Someone Else"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			m := tt.meta
			if err := Apply(context.Background(), testFile(t, tt.file), out, Post{Metadata: &m}); err != nil {
				t.Fatal(err)
			}
			got := inspect(t, out, "")
			if got.Title != tt.want.Title || got.Author != tt.want.Author || got.Subject != tt.want.Subject || got.Keywords != tt.want.Keywords {
				t.Errorf("metadata = %q/%q/%q/%q, want %q/%q/%q/%q", got.Title, got.Author, got.Subject, got.Keywords,
					tt.want.Title, tt.want.Author, tt.want.Subject, tt.want.Keywords)
			}
		})
	}
}

func TestApplyEncrypt(t *testing.T) {
	tests := []struct {
		name        string
		user, owner string
		perms       string
		custom      *Permissions
	}{
		{"user and owner, none", "pässwörd", "Ownér-42", "none", nil},
		{"owner only, print", "", "owner", "print", nil},
		{"all", "u", "o", "all", nil},
		{"custom", "u", "o", "", &Permissions{Copy: true, Fill: true, Assemble: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perms := Permissions{}
			if tt.custom != nil {
				perms = *tt.custom
			} else {
				var err error
				if perms, err = ParsePermissions(tt.perms); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(t.TempDir(), "out.pdf")
			enc := &Encryption{UserPassword: tt.user, OwnerPassword: tt.owner, Permissions: perms}
			if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, Post{Encrypt: enc}); err != nil {
				t.Fatal(err)
			}
			if tt.user != "" {
				for _, pw := range []string{"", "wrong", tt.user + "x", "with space", tt.owner + "\t"} {
					if _, err := Inspect(out, pw); !errors.Is(err, ErrEncrypted) {
						t.Errorf("Inspect with %q: %v, want ErrEncrypted", pw, err)
					}
				}
			}
			for _, pw := range []string{tt.user, tt.owner} {
				info := inspect(t, out, pw)
				if !info.Encrypted || !info.AES256 || info.Pages != 3 {
					t.Errorf("Inspect with %q = %+v, want 3 pages, AES-256", pw, info)
				}
				if info.Permissions != perms {
					t.Errorf("permissions = %v, want %v", info.Permissions, perms)
				}
				if text, err := Text(out, pw); err != nil || !strings.Contains(text, "Page 2") {
					t.Errorf("Text with %q = %q, %v", pw, text, err)
				}
			}
		})
	}
}

// TestApplyAll runs every step at once and reads every result back.
func TestApplyAll(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "doc.pdf")
	data, err := os.ReadFile(testFile(t, "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o600); err != nil {
		t.Fatal(err)
	}
	p := Post{
		Watermark: &Watermark{Text: "DRAFT"},
		Metadata:  &Metadata{Title: "Report", Keywords: "q3"},
		Optimize:  true,
		Encrypt:   &Encryption{UserPassword: "open", OwnerPassword: "admin", Permissions: Permissions{Print: true}},
	}
	if err := Apply(context.Background(), in, in, p); err != nil { // in place
		t.Fatal(err)
	}
	onlyFiles(t, dir, "doc.pdf")
	info := inspect(t, in, "open")
	if info.Pages != 3 || !info.AES256 || info.Title != "Report" || info.Keywords != "q3" || info.Permissions != (Permissions{Print: true}) {
		t.Errorf("Inspect = %+v", info)
	}
	text, err := Text(in, "admin")
	if err != nil || strings.Count(text, "DRAFT") != 3 {
		t.Errorf("Text = %q, %v; want DRAFT on each of 3 pages", text, err)
	}
}

func TestApplyNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.pdf")
	if err := Apply(context.Background(), testFile(t, "broken-xref.pdf"), out, Post{}); err != nil {
		t.Fatal(err)
	}
	if got := inspect(t, out, "").Pages; got != 1 {
		t.Errorf("pages = %d, want 1", got)
	}
}

func TestApplyOptimize(t *testing.T) {
	dir := t.TempDir()
	merged := filepath.Join(dir, "merged.pdf")
	doc := testFile(t, "testPDF.pdf")
	if err := Merge(context.Background(), []string{doc, doc, doc}, merged); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "optimized.pdf")
	if err := Apply(context.Background(), merged, out, Post{Optimize: true}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(merged)
	after, _ := os.Stat(out)
	if after.Size() >= before.Size() {
		t.Errorf("optimized size %d, want less than %d (three copies of the same fonts)", after.Size(), before.Size())
	}
	if got := inspect(t, out, "").Pages; got != 3 {
		t.Errorf("pages = %d, want 3", got)
	}
}

// TestApplyFailure checks that a failed Apply leaves nothing at out, no
// temporary file, and a file already at out untouched.
func TestApplyFailure(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		in   string
		post Post
		err  error
	}{
		{"encrypted input", context.Background(), "testPassword4Spaces.pdf", Post{Watermark: &Watermark{Text: "x"}}, ErrEncrypted},
		{"encrypt encrypted input", context.Background(), "testPassword4Spaces.pdf", Post{Encrypt: &Encryption{OwnerPassword: "o"}}, ErrEncrypted},
		{"no owner password", context.Background(), "pages_3.pdf", Post{Encrypt: &Encryption{UserPassword: "u"}}, nil},
		{"space in password", context.Background(), "pages_3.pdf", Post{Encrypt: &Encryption{UserPassword: "a b", OwnerPassword: "o"}}, nil},
		{"long password", context.Background(), "pages_3.pdf", Post{Encrypt: &Encryption{OwnerPassword: strings.Repeat("x", 128)}}, nil},
		{"bad style", context.Background(), "pages_3.pdf", Post{Watermark: &Watermark{Text: "x", Style: "nonsense:1"}}, nil},
		{"text and image", context.Background(), "pages_3.pdf", Post{Watermark: &Watermark{Text: "x", Image: "y.png"}}, nil},
		{"empty watermark", context.Background(), "pages_3.pdf", Post{Watermark: &Watermark{}}, nil},
		{"not latin-1", context.Background(), "pages_3.pdf", Post{Watermark: &Watermark{Text: "機密"}}, nil},
		{"missing image", context.Background(), "pages_3.pdf", Post{Watermark: &Watermark{Image: "/nonexistent.png"}}, nil},
		{"not a pdf", context.Background(), "testPNG.png", Post{Metadata: &Metadata{Title: "t"}}, nil},
		{"cancelled", cancelled, "pages_3.pdf", Post{Optimize: true}, context.Canceled},
	}
	for _, tt := range tests {
		for _, existing := range []bool{false, true} {
			name := tt.name
			if existing {
				name += ", out exists"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				out := filepath.Join(dir, "out.pdf")
				if existing {
					if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				err := Apply(tt.ctx, testFile(t, tt.in), out, tt.post)
				if err == nil || (tt.err != nil && !errors.Is(err, tt.err)) {
					t.Fatalf("Apply error = %v, want %v", err, tt.err)
				}
				if !existing {
					onlyFiles(t, dir)
					return
				}
				onlyFiles(t, dir, "out.pdf")
				if b, _ := os.ReadFile(out); string(b) != "old" {
					t.Errorf("existing out changed to %.20q", b)
				}
			})
		}
	}
}

func TestParsePermissions(t *testing.T) {
	tests := []struct {
		in    string
		want  Permissions
		flags model.PermissionFlags
		ok    bool
	}{
		{"none", Permissions{}, model.PermissionsNone, true},
		{"print", Permissions{Print: true, PrintHigh: true}, model.PermissionsPrint, true},
		{" ALL ", allPermissions, model.PermissionsAll, true},
		{"everything", Permissions{}, 0, false},
		{"", Permissions{}, 0, false},
	}
	for _, tt := range tests {
		got, err := ParsePermissions(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParsePermissions(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
			continue
		}
		if tt.ok && got.flags() != tt.flags {
			t.Errorf("ParsePermissions(%q).flags() = %#x, want %#x", tt.in, got.flags(), tt.flags)
		}
		if tt.ok && got.String() != strings.ToLower(strings.TrimSpace(tt.in)) {
			t.Errorf("String() = %q, want %q", got.String(), tt.in)
		}
	}
}

// TestPermissionFlagsRoundTrip maps every combination to pdfcpu's bits and
// back.
func TestPermissionFlagsRoundTrip(t *testing.T) {
	for m := range 256 {
		p := Permissions{m&1 != 0, m&2 != 0, m&4 != 0, m&8 != 0, m&16 != 0, m&32 != 0, m&64 != 0, m&128 != 0}
		if got := permissionsFromFlags(int(p.flags())); got != p {
			t.Errorf("round trip of %+v gave %+v", p, got)
		}
		if p.flags()&model.PermissionsNone != model.PermissionsNone {
			t.Errorf("%+v: reserved bits not set in %#x", p, p.flags())
		}
	}
}
