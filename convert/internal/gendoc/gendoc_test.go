package gendoc

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"calq/convert/sniff"
)

// entries opens b as a zip, checks that every .xml/.rels entry is well-formed
// XML and returns the entries' names and contents.
func entries(t *testing.T, b []byte) ([]*zip.File, map[string]string) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		bodies[f.Name] = string(data)
		if strings.HasSuffix(f.Name, ".xml") || strings.HasSuffix(f.Name, ".rels") {
			wellFormed(t, f.Name, data)
		}
	}
	return zr.File, bodies
}

func wellFormed(t *testing.T, name string, data []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
	}
}

func names(files []*zip.File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name)
	}
	return out
}

func TestDOCX(t *testing.T) {
	var buf bytes.Buffer
	if err := DOCX(&buf, `Q&A <draft> "1"`, 7); err != nil {
		t.Fatal(err)
	}
	files, bodies := entries(t, buf.Bytes())
	want := []string{"[Content_Types].xml", "_rels/.rels", "docProps/core.xml",
		"word/_rels/document.xml.rels", "word/styles.xml", "word/document.xml"}
	if got := names(files); !slices.Equal(got, want) {
		t.Errorf("entries = %v, want %v", got, want)
	}
	doc := bodies["word/document.xml"]
	// A title, 2 headings (before paragraphs 1 and 6) and 7 paragraphs.
	if got := strings.Count(doc, "<w:p>"); got != 10 {
		t.Errorf("document has %d paragraphs, want 10", got)
	}
	if !strings.Contains(doc, "Q&amp;A &lt;draft&gt; &#34;1&#34;") || !strings.Contains(bodies["docProps/core.xml"], "Q&amp;A") {
		t.Errorf("title not escaped into document.xml and core.xml")
	}
}

func TestODT(t *testing.T) {
	var buf bytes.Buffer
	if err := ODT(&buf, "Title", 3); err != nil {
		t.Fatal(err)
	}
	files, bodies := entries(t, buf.Bytes())
	want := []string{"mimetype", "META-INF/manifest.xml", "meta.xml", "styles.xml", "content.xml"}
	if got := names(files); !slices.Equal(got, want) {
		t.Errorf("entries = %v, want %v", got, want)
	}
	if files[0].Method != zip.Store || bodies["mimetype"] != "application/vnd.oasis.opendocument.text" {
		t.Errorf("mimetype entry: method %d, content %q; want stored and the ODT type", files[0].Method, bodies["mimetype"])
	}
	// ODF readers find the mimetype at byte 38 of the file, right after its local header.
	if got := string(buf.Bytes()[30:38]); got != "mimetype" {
		t.Errorf("bytes 30-38 = %q, want the mimetype entry's name", got)
	}
	if got := strings.Count(bodies["content.xml"], `<text:p text:style-name="Standard">`); got != 3 {
		t.Errorf("content has %d body paragraphs, want 3", got)
	}
}

func TestTables(t *testing.T) {
	d := Doc{Title: "T", Paragraphs: 4, Tables: 3, TableRows: 5}
	var docx, odt bytes.Buffer
	if err := d.WriteDOCX(&docx); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteODT(&odt); err != nil {
		t.Fatal(err)
	}
	_, db := entries(t, docx.Bytes())
	_, ob := entries(t, odt.Bytes())
	tests := []struct {
		name, body, sub string
		want            int
	}{
		{"docx tables", db["word/document.xml"], "<w:tbl>", 3},
		{"docx rows", db["word/document.xml"], "<w:tr>", 3 * 6},
		{"odt tables", ob["content.xml"], "<table:table ", 3},
		{"odt rows", ob["content.xml"], "<table:table-row>", 3 * 6},
	}
	for _, tt := range tests {
		if got := strings.Count(tt.body, tt.sub); got != tt.want {
			t.Errorf("%s: %d of %q, want %d", tt.name, got, tt.sub, tt.want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	d := Doc{Title: "Same", Paragraphs: 6, Tables: 1, TableRows: 4, Seed: 3}
	for name, write := range map[string]func(Doc, io.Writer) error{"docx": Doc.WriteDOCX, "odt": Doc.WriteODT} {
		var a, b bytes.Buffer
		if err := write(d, &a); err != nil {
			t.Fatal(err)
		}
		if err := write(d, &b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two writes of the same Doc differ", name)
		}
		var c bytes.Buffer
		d2 := d
		d2.Seed++
		write(d2, &c)
		if bytes.Equal(a.Bytes(), c.Bytes()) {
			t.Errorf("%s: another seed gave the same bytes", name)
		}
	}
}

func TestBatch(t *testing.T) {
	tests := []struct {
		n     int
		size  string
		first string
		last  string
	}{
		{3, "small", "doc-01.docx", "doc-03.docx"},
		{100, "small", "doc-001.docx", "doc-100.docx"},
		{2, "large", "doc-01.docx", "doc-02.docx"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		paths, err := Batch(dir, tt.n, tt.size)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != tt.n || filepath.Base(paths[0]) != tt.first || filepath.Base(paths[tt.n-1]) != tt.last {
			t.Errorf("Batch(%d, %s) = %d paths %s..%s; want %s..%s", tt.n, tt.size, len(paths),
				filepath.Base(paths[0]), filepath.Base(paths[len(paths)-1]), tt.first, tt.last)
		}
		for _, p := range paths {
			if k, err := sniff.Detect(p); err != nil || k != sniff.Office {
				t.Errorf("sniff.Detect(%s) = %v, %v; want office", p, k, err)
			}
		}
	}
}

func TestBatchErrors(t *testing.T) {
	if _, err := Batch(t.TempDir(), 1, "huge"); err == nil || !strings.Contains(err.Error(), `unknown size "huge"`) {
		t.Errorf("Batch(huge) error = %v, want unknown size", err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := Batch(missing, 1, "small"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Batch into a missing directory: error %v, want ErrNotExist", err)
	}
}

func TestSniffAcceptsODT(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gen.odt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := (Doc{Title: "ODT", Paragraphs: 2, Tables: 1, TableRows: 2}).WriteODT(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if k, err := sniff.Detect(p); err != nil || k != sniff.Office {
		t.Errorf("sniff.Detect = %v, %v; want office", k, err)
	}
}
