package pdf

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// associated returns, for each file the catalog's /AF lists, its name,
// AFRelationship and MIME subtype, as "name relationship subtype".
func associated(t *testing.T, path string) []string {
	t.Helper()
	ctx, err := readContext(path, "", model.LISTATTACHMENTS)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := ctx.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	af := cat.ArrayEntry("AF")
	var got []string
	for _, o := range af {
		d, err := ctx.DereferenceDict(o)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := infoValue(ctx.XRefTable, d["F"])
		rel := ""
		if n := d.NameEntry("AFRelationship"); n != nil {
			rel = *n
		}
		sd, _, err := ctx.DereferenceStreamDict(*d.DictEntry("EF").IndirectRefEntry("F"))
		if err != nil {
			t.Fatal(err)
		}
		sub := ""
		if n := sd.NameEntry("Subtype"); n != nil {
			sub = *n
		}
		got = append(got, strings.TrimSpace(name+" "+rel+" "+sub))
	}
	return got
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestEmbed(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"0001.xml": "<a/>", "0002.xml": "<b/>"})
	tests := []struct {
		name   string
		embeds []Attachment
		want   []string
	}{
		{"plain", []Attachment{{Path: filepath.Join(dir, "0001.xml"), Name: "invoice.xml"}}, []string{"invoice.xml"}},
		{"two with metadata", []Attachment{
			{Path: filepath.Join(dir, "0001.xml"), Name: "a.xml", MimeType: "text/xml", Relationship: "Data"},
			{Path: filepath.Join(dir, "0002.xml"), Name: "b.xml", Relationship: "Alternative"},
		}, []string{"a.xml Data text/xml", "b.xml Alternative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pdf")
			if err := Apply(context.Background(), testFile(t, "pages_3.pdf"), out, Post{Embeds: tt.embeds}); err != nil {
				t.Fatal(err)
			}
			if got := associated(t, out); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got /AF %q, want %q", got, tt.want)
			}
			var names []string
			for _, w := range tt.want {
				names = append(names, strings.Fields(w)[0])
			}
			if got := attachments(t, out); !reflect.DeepEqual(slices.Sorted(slices.Values(got)), names) {
				t.Errorf("got attachments %q, want %q", got, names)
			}
		})
	}
}

func TestEmbedRefused(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"0001.xml": "<a/>"})
	file := filepath.Join(dir, "0001.xml")
	tests := []struct {
		name   string
		embeds []Attachment
		want   string
	}{
		{"no name", []Attachment{{Path: file}}, "a file name is required"},
		{"newline in name", []Attachment{{Path: file, Name: "a\n.xml"}}, "control characters"},
		{"slash in name", []Attachment{{Path: file, Name: "../a.xml"}}, "slashes"},
		{"long name", []Attachment{{Path: file, Name: strings.Repeat("a", 300)}}, "255 bytes"},
		{"bad relationship", []Attachment{{Path: file, Name: "a.xml", Relationship: "Friend"}}, "want one of Source"},
		{"bad mime type", []Attachment{{Path: file, Name: "a.xml", MimeType: "text/xml\n/Evil"}}, "mime type"},
		{"twice the same name", []Attachment{{Path: file, Name: "a.xml"}, {Path: file, Name: "a.xml"}}, "two files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Post{Embeds: tt.embeds}
			err := p.Check()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "embeds" || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check() = %v, want a FieldError for embeds saying %q", err, tt.want)
			}
			out := filepath.Join(t.TempDir(), "out.pdf")
			if Apply(context.Background(), testFile(t, "pages_3.pdf"), out, p) == nil {
				t.Error("Apply accepted what Check refuses")
			}
			mustNotExist(t, out)
		})
	}
}

// TestEmbedKeepsAF: a second embed adds to the catalog's /AF.
func TestEmbedKeepsAF(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"0001.xml": "<a/>"})
	first, second := filepath.Join(dir, "1.pdf"), filepath.Join(dir, "2.pdf")
	in := testFile(t, "pages_3.pdf")
	if err := Apply(context.Background(), in, first, Post{Embeds: []Attachment{{Path: filepath.Join(dir, "0001.xml"), Name: "a.xml"}}}); err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), first, second, Post{Embeds: []Attachment{{Path: filepath.Join(dir, "0001.xml"), Name: "b.xml", Relationship: "Source"}}}); err != nil {
		t.Fatal(err)
	}
	if got, want := associated(t, second), []string{"a.xml", "b.xml Source"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got /AF %q, want %q", got, want)
	}
}
