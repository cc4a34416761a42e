package serve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMetadataDatesSurvive: the dates a client gives in 'metadata', under
// PDF's names or ExifTool's (what metadata/read answers), are the dates
// metadata/read then reads from every file each writing route gives,
// time zone offset included; pdfcpu's save must not stamp its own.
func TestMetadataDatesSurvive(t *testing.T) {
	ts := newTestServer(t, nil)
	three := threePages(t)
	const exif = `{"Title":"Sample","CreateDate":"2006-09-18T16:27:50-04:00","ModDate":"2006-09-18T16:27:50-04:00"}`
	const want = "2006:09:18 16:27:50-04:00"
	tests := []struct {
		name  string
		route string
		parts []part
	}{
		{"metadata/write, ExifTool's names", "pdfengines/metadata/write", []part{{"files", "a.pdf", three}, {"metadata", "", exif}}},
		{"metadata/write, PDF's names", "pdfengines/metadata/write", []part{{"files", "a.pdf", three},
			{"metadata", "", `{"CreationDate":"2006-09-18T16:27:50-04:00","ModDate":"D:20060918162750-04'00'"}`}}},
		{"metadata/write, ExifTool's ModifyDate", "pdfengines/metadata/write", []part{{"files", "a.pdf", three},
			{"metadata", "", `{"CreateDate":"2006:09:18 16:27:50-04:00","ModifyDate":"2006-09-18T16:27:50-04:00"}`}}},
		{"metadata/write, two files", "pdfengines/metadata/write", []part{{"files", "a.pdf", three}, {"files", "b.pdf", three},
			{"metadata", "", exif}}},
		{"merge", "pdfengines/merge", []part{{"files", "a.pdf", three}, {"files", "b.pdf", three}, {"metadata", "", exif}}},
		{"split", "pdfengines/split", []part{{"files", "a.pdf", three}, {"splitMode", "", "intervals"},
			{"splitSpan", "", "2"}, {"metadata", "", exif}}},
		{"libreoffice/convert", "libreoffice/convert", []part{{"files", "a.txt", "dated\n"}, {"metadata", "", exif}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := postParts(t, ts.URL+"/forms/"+tt.route, tt.parts)
			b := body(t, resp)
			if resp.StatusCode != 200 {
				t.Fatalf("got status %d %q, want 200", resp.StatusCode, b)
			}
			for name, path := range pdfs(t, resp, b) {
				content, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				resp := postParts(t, ts.URL+"/forms/pdfengines/metadata/read", []part{{"files", "x.pdf", string(content)}})
				rb := body(t, resp)
				var got map[string]map[string]any
				if err := json.Unmarshal(rb, &got); err != nil {
					t.Fatalf("%s: metadata/read gave %q: %v", name, rb, err)
				}
				for _, k := range []string{"CreateDate", "ModDate"} {
					if got["x.pdf"][k] != want {
						t.Errorf("%s: got %s %v, want %q (all: %v)", name, k, got["x.pdf"][k], want, got["x.pdf"])
					}
				}
			}
		})
	}
}

// TestMetadataDateNames: the form's date keys, under either name and in
// each accepted form, and a date given twice under its two names.
func TestMetadataDateNames(t *testing.T) {
	want := time.Date(2006, 9, 18, 16, 27, 50, 0, time.FixedZone("", -4*3600))
	tests := []struct {
		name    string
		in      map[string]any
		wantErr string
	}{
		{"PDF's names, RFC 3339", map[string]any{"CreationDate": "2006-09-18T16:27:50-04:00", "ModDate": "2006-09-18T16:27:50-04:00"}, ""},
		{"ExifTool's names, ExifTool's form", map[string]any{"CreateDate": "2006:09:18 16:27:50-04:00", "ModifyDate": "2006:09:18 16:27:50-04:00"}, ""},
		{"PDF's form", map[string]any{"CreateDate": "D:20060918162750-04'00'", "ModDate": "D:20060918162750-04'00'"}, ""},
		{"one date twice", map[string]any{"CreateDate": "2006-09-18T16:27:50-04:00", "CreationDate": "2006-09-18T16:27:50-04:00"},
			"CreationDate and CreateDate are one date"},
		{"not a date", map[string]any{"ModifyDate": "soon"}, `ModifyDate "soon": want a date`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, custom, err := metadata(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !m.CreationDate.Equal(want) || !m.ModDate.Equal(want) || len(custom) != 0 {
				t.Errorf("got CreationDate %v, ModDate %v, custom %v; want %v twice and no custom key", m.CreationDate, m.ModDate, custom, want)
			}
			if _, off := m.CreationDate.Zone(); off != -4*3600 {
				t.Errorf("got offset %d s, want -14400", off)
			}
		})
	}
}

// threePages is the repository's three-page PDF.
func threePages(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
