package form

import (
	"errors"

	"calq/convert/pdf"
	"reflect"
	"testing"
)

func TestPDFEngines(t *testing.T) {
	all := Permissions{true, true, true, true, true, true}
	for _, tc := range []struct {
		route      string
		form       *Form
		want       EngineOptions
		wantStatus int
		wantErr    string
	}{
		{route: "merge", form: formOf("pdfa", "PDF/A-3b", "flatten", "true", "rotateAngle", "90"),
			want: EngineOptions{Route: "merge", PDFA: 3, Post: Post{Flatten: true, Rotate: &Rotation{Angle: 90}}}},
		{route: "/forms/pdfengines/merge", form: formOf(), want: EngineOptions{Route: "merge"}},
		{route: "merge", form: formOf("bookmarks", `[{"title":"A","page":2}]`),
			want: EngineOptions{Route: "merge", Post: Post{Bookmarks: []pdf.Bookmark{{Title: "A", Page: 2}}}}},
		{route: "merge", form: formOf("bookmarks", `{"a.pdf":[{"title":"A","page":1}]}`),
			want: EngineOptions{Route: "merge", Post: Post{FileBookmarks: map[string][]pdf.Bookmark{"a.pdf": {{Title: "A", Page: 1}}}}}},
		{route: "merge", form: formOf("titleBookmarks", "true", "autoIndexBookmarks", "true"),
			want: EngineOptions{Route: "merge", TitleBookmarks: true, AutoIndexBookmarks: true}},
		{route: "merge", form: formOf("autoIndexBookmarks", "foo"), wantStatus: 400,
			wantErr: "Invalid form data: form field 'autoIndexBookmarks' is invalid (got 'foo', resulting to strconv.ParseBool: parsing \"foo\": invalid syntax)"},
		{route: "merge", form: formOf("titleBookmarks", "foo"), wantStatus: 400,
			wantErr: "Invalid form data: form field 'titleBookmarks' is invalid (got 'foo', resulting to strconv.ParseBool: parsing \"foo\": invalid syntax)"},
		{route: "split", form: formOf("splitMode", "pages", "splitSpan", "1", "titleBookmarks", "true", "bookmarks", `{"a.pdf":[]}`),
			want: EngineOptions{Route: "split", Post: Post{Split: &Split{Mode: "pages", Span: "1"}}}},
		{route: "merge", form: formOf("splitMode", "pages", "splitSpan", "1"), want: EngineOptions{Route: "merge"}},
		{route: "split", form: formOf("splitMode", "pages", "splitSpan", "1", "metadata", `{"Author":"A"}`),
			want: EngineOptions{Route: "split", Post: Post{Split: &Split{Mode: "pages", Span: "1"}, Metadata: map[string]any{"Author": "A"}}}},
		{route: "split", form: formOf(), wantStatus: 400, wantErr: "Invalid form data: form field 'splitMode' is required\nform field 'splitSpan' is required"},
		{route: "flatten", form: formOf("rotateAngle", "90"), want: EngineOptions{Route: "flatten", Post: Post{Flatten: true}}},
		{route: "convert", form: formOf("pdfua", "true"), want: EngineOptions{Route: "convert", PDFUA: true}},
		{route: "convert", form: formOf(), wantStatus: 400,
			wantErr: "Invalid form data: either 'pdfa' or 'pdfua' form fields must be provided"},
		{route: "convert", form: formOf("pdfa", "PDF/A-4"), wantStatus: 400,
			wantErr: "The requested PDF format is not supported, or no PDF engine could apply it. Valid formats include PDF/A-1b, PDF/A-2b, PDF/A-3b, and PDF/UA."},
		{route: "metadata/read", form: formOf("metadata", "junk"), want: EngineOptions{Route: "metadata/read"}},
		{route: "metadata/write", form: formOf("metadata", `{"Title":"T"}`),
			want: EngineOptions{Route: "metadata/write", Post: Post{Metadata: map[string]any{"Title": "T"}}}},
		{route: "metadata/write", form: formOf(), wantStatus: 400, wantErr: "Invalid form data: form field 'metadata' is required"},
		{route: "encrypt", form: formOf("userPassword", "u"),
			want: EngineOptions{Route: "encrypt", Post: Post{Encrypt: &Encryption{UserPassword: "u", Permissions: all}}}},
		{route: "encrypt", form: formOf(), wantStatus: 400,
			wantErr: "Invalid form data: a 'userPassword' or 'ownerPassword' is required"},
		{route: "encrypt", form: formOf("allowCopying", "false"), wantStatus: 400,
			wantErr: "Invalid form data: permission restrictions require a 'userPassword' or 'ownerPassword'"},
		{route: "watermark", form: formOf("watermarkSource", "text", "watermarkExpression", "W"),
			want: EngineOptions{Route: "watermark", Post: Post{Watermark: &Mark{Source: "text", Text: "W"}}}},
		{route: "watermark", form: formOf(), wantStatus: 400, wantErr: "Invalid form data: form field 'watermarkSource' is required"},
		{route: "stamp", form: formOf("stampSource", "text", "stampExpression", "S", "stampOptions", `{"position":"tl"}`),
			want: EngineOptions{Route: "stamp", Post: Post{Stamp: &Mark{Source: "text", Text: "S", Description: "position:tl"}}}},
		{route: "stamp", form: formOf("watermarkSource", "text"), wantStatus: 400, wantErr: "Invalid form data: form field 'stampSource' is required"},
		{route: "rotate", form: formOf("rotateAngle", "180"), want: EngineOptions{Route: "rotate", Post: Post{Rotate: &Rotation{Angle: 180}}}},
		{route: "rotate", form: formOf("rotatePages", "1"), wantStatus: 400, wantErr: "Invalid form data: form field 'rotateAngle' is required"},
		{route: "optimize", form: formOf(), want: EngineOptions{Route: "optimize", Post: Post{Optimize: true, Images: &pdf.Images{Quality: 80}}}},
		{route: "optimize", form: formOf("imageQuality", "40", "maxImageResolution", "150"),
			want: EngineOptions{Route: "optimize", Post: Post{Optimize: true, Images: &pdf.Images{Quality: 40, MaxResolution: 150}}}},
		{route: "optimize", form: formOf("imageQuality", "200"), wantStatus: 400,
			wantErr: "Invalid form data: form field 'imageQuality' is invalid (got '200', resulting to value is superior to 100)"},
		{route: "merge", form: formOf("optimizeImages", "true", "imageQuality", "40"),
			want: EngineOptions{Route: "merge", Post: Post{Images: &pdf.Images{Quality: 40}}}},
		{route: "merge", form: formOf("imageQuality", "200"), wantStatus: 400,
			wantErr: "Invalid form data: form field 'imageQuality' is invalid (got '200', resulting to value is superior to 100)"},
		{route: "split", form: formOf("splitMode", "pages", "splitSpan", "1", "optimizeImages", "false", "imageQuality", "x"), wantStatus: 400,
			wantErr: "Invalid form data: form field 'imageQuality' is invalid (got 'x', resulting to strconv.Atoi: parsing \"x\": invalid syntax)"},
		{route: "chromium", form: formOf(), wantStatus: 404, wantErr: "calq serve does not offer the route /forms/pdfengines/chromium."},
		{route: "factur-x", form: formOf("facturxConformanceLevel", "EN 16931"), wantStatus: 400,
			wantErr: "Invalid form data: 'facturxConformanceLevel' and 'facturxXml' are both required"},
		{route: "factur-x", form: &Form{fields: formOf("facturxConformanceLevel", "BASIC", "facturxDocumentType", "ORDER").fields,
			Files: []File{{Name: "a.pdf", Field: "files"}, {Name: "inv.xml", Path: "/d/2.xml", Field: "facturxXml"}}},
			want: EngineOptions{Route: "factur-x", Post: Post{FacturX: &pdf.FacturX{XML: "/d/2.xml", Level: "BASIC", DocumentType: "ORDER"}}}},
		{route: "bookmarks/read", form: formOf("bookmarks", "junk"), want: EngineOptions{Route: "bookmarks/read"}},
		{route: "bookmarks/write", form: formOf("bookmarks", `[{"title":"Index","page":1,"children":[{"title":"Sub","page":1}]}]`),
			want: EngineOptions{Route: "bookmarks/write", Post: Post{Bookmarks: []pdf.Bookmark{{Title: "Index", Page: 1, Children: []pdf.Bookmark{{Title: "Sub", Page: 1}}}}}}},
		{route: "bookmarks/write", form: formOf("bookmarks", `{"a.pdf":[{"title":"Index","page":1}]}`),
			want: EngineOptions{Route: "bookmarks/write", Post: Post{FileBookmarks: map[string][]pdf.Bookmark{"a.pdf": {{Title: "Index", Page: 1}}}}}},
		{route: "bookmarks/write", form: formOf(), wantStatus: 400, wantErr: "Invalid form data: form field 'bookmarks' is required"},
		{route: "bookmarks/write", form: formOf("bookmarks", "foo"), wantStatus: 400,
			wantErr: "Invalid form data: form field 'bookmarks' is invalid (got 'foo', resulting to unmarshal bookmarks: invalid character 'o' in literal false (expecting 'a'))"},
		{route: "bookmarks/write", form: formOf("bookmarks", `[{"title":"A","pages":1}]`), wantStatus: 400,
			wantErr: "Invalid form data: form field 'bookmarks' is invalid (got '[{\"title\":\"A\",\"pages\":1}]', want a JSON list of {\"title\", \"page\", \"children\"}, or an object of such lists by file name: json: unknown field \"pages\")"},
		{route: "embed", form: &Form{fields: formOf("embedsMetadata", `{"b.xml":{"relationship":"Data","mimeType":"text/xml"}}`).fields,
			Files: []File{{Name: "a.pdf", Field: "files"}, {Name: "a.xml", Path: "/d/2.xml", Field: "embeds"}, {Name: "b.xml", Path: "/d/3.xml", Field: "embeds"}}},
			want: EngineOptions{Route: "embed", Post: Post{Embeds: []pdf.Attachment{{Path: "/d/2.xml", Name: "a.xml"},
				{Path: "/d/3.xml", Name: "b.xml", MimeType: "text/xml", Relationship: "Data"}}}}},
		{route: "embed", form: &Form{fields: formOf("embedsMetadata", `{"c.xml":{"relationship":"Data"}}`).fields,
			Files: []File{{Name: "a.xml", Path: "/d/2.xml", Field: "embeds"}}}, wantStatus: 400,
			wantErr: "Invalid form data: form field 'embedsMetadata' is invalid ('c.xml' names no file uploaded as embeds)"},
		{route: "embed", form: &Form{fields: formOf("embedsMetadata", `{"a.xml":{"relation":"Data"}}`).fields,
			Files: []File{{Name: "a.xml", Path: "/d/2.xml", Field: "embeds"}}}, wantStatus: 400,
			wantErr: "Invalid form data: form field 'embedsMetadata' is invalid ('a.xml': got key 'relation', want 'mimeType' or 'relationship')"},
		{route: "watermark", form: &Form{fields: formOf("watermarkSource", "text", "watermarkExpression", "ONE", "watermarkOptions", `{"position":"tl"}`,
			"watermarkSource", "text", "watermarkExpression", "TWO", "watermarkSource", "image").fields,
			Files: []File{{Name: "a.pdf", Field: "files"}, {Name: "w.png", Path: "/d/2.png", Field: "watermark"}}},
			want: EngineOptions{Route: "watermark", Post: Post{Watermark: &Mark{Source: "text", Text: "ONE", Description: "position:tl"},
				Watermarks: []Mark{{Source: "text", Text: "TWO"}, {Source: "image", File: "/d/2.png"}}}}},
		{route: "stamp", form: &Form{fields: formOf("stampSource", "image", "stampSource", "pdf").fields,
			Files: []File{{Name: "s.png", Path: "/d/2.png", Field: "stamp"}}}, wantStatus: 400,
			wantErr: "Invalid form data: a stamp file is required for image or pdf source"},
	} {
		t.Run(tc.route+" "+tc.wantErr, func(t *testing.T) {
			got, err := PDFEngines(tc.route, tc.form)
			if msg := errMsg(err); msg != tc.wantErr {
				t.Fatalf("error %q, want %q", msg, tc.wantErr)
			}
			if err != nil {
				var fe *Error
				if !errors.As(err, &fe) || fe.Status != tc.wantStatus {
					t.Errorf("error %#v, want status %d", err, tc.wantStatus)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// Every route PDFEngines claims reads without a 404.
func TestEngineRoutes(t *testing.T) {
	for _, r := range EngineRoutes {
		_, err := PDFEngines(r, formOf())
		var fe *Error
		if errors.As(err, &fe) && fe.Status == 404 {
			t.Errorf("route %s: %v", r, err)
		}
	}
}
