package form

import (
	"encoding/json"
	"reflect"
	"testing"

	"calq/convert/pdf"
)

func ptr[T any](v T) *T { return &v }

func TestLibreOffice(t *testing.T) {
	for _, tc := range []struct {
		name    string
		form    *Form
		want    LibreOfficeOptions
		wantErr string
	}{
		{name: "nothing", form: formOf("unknownField", "ignored")},
		{name: "export options", form: formOf(
			"landscape", "true", "nativePageRanges", " 1-4, 6 ", "pdfa", "PDF/A-2b", "pdfua", "true",
			"singlePageSheets", "true", "exportFormFields", "false", "exportBookmarks", "true", "exportNotes", "true",
			"losslessImageCompression", "true", "quality", "75", "reduceImageResolution", "true",
			"maxImageResolution", "150", "password", "s3cret", "merge", "true", "mailTo", " alice, ,bob@example.com ",
		), want: LibreOfficeOptions{
			Landscape: true, PageRanges: "1-4, 6", PDFA: 2, PDFUA: true, SinglePageSheets: true,
			ExportFormFields: ptr(false), ExportBookmarks: ptr(true), ExportNotes: true, LosslessImageCompression: true,
			Quality: 75, MaxImageResolution: 150, Password: "s3cret", Merge: true, MailTo: []string{"alice", "bob@example.com"},
		}},
		{name: "pdfa 1b and 3b", form: formOf("pdfa", "PDF/A-3b"), want: LibreOfficeOptions{PDFA: 3}},
		{name: "pdfa case folded", form: formOf("pdfa", "pdf/a-1B"), want: LibreOfficeOptions{PDFA: 1}},
		{name: "pdfa bad", form: formOf("pdfa", "PDF/A-1a"), wantErr: "The PDF format 'PDF/A-1a' is not supported. Valid formats include PDF/A-1b, PDF/A-2b, PDF/A-3b, and PDF/UA."},
		{name: "reduce without max is 300", form: formOf("reduceImageResolution", "true"), want: LibreOfficeOptions{MaxImageResolution: 300}},
		{name: "max without reduce does nothing", form: formOf("maxImageResolution", "600"), want: LibreOfficeOptions{}},
		{name: "max bad", form: formOf("maxImageResolution", "100"), wantErr: "Invalid form data: form field 'maxImageResolution' is invalid (got '100', resulting to value is not 75, 150, 300, 600 or 1200)"},
		{name: "quality 101", form: formOf("quality", "101"), wantErr: "Invalid form data: form field 'quality' is invalid (got '101', resulting to value is superior to 100)"},
		{name: "quality 0", form: formOf("quality", "0"), wantErr: "Invalid form data: form field 'quality' is invalid (got '0', resulting to value is inferior to 1)"},
		{name: "landscape bad", form: formOf("landscape", "yes"), wantErr: "Invalid form data: form field 'landscape' is invalid (got 'yes', resulting to strconv.ParseBool: parsing \"yes\": invalid syntax)"},
		{name: "page ranges bad", form: formOf("nativePageRanges", "1-2; rm"), wantErr: "LibreOffice could not apply the page ranges '1-2; rm' to the document ''. Check the 'nativePageRanges' form field; valid values look like '1-4', '2' or '1,3,5-7'."},
		{name: "nativePdfFormats accepted", form: formOf("nativePdfFormats", "false"), want: LibreOfficeOptions{}},
		{name: "defaults passed on", form: formOf("updateIndexes", "false", "zoom", "100", "displayPDFDocumentTitle", "true", "openBookmarkLevels", "-1", "optimizeImages", "false"),
			want: LibreOfficeOptions{Options: map[string]string{"zoom": "100", "displayPDFDocumentTitle": "true", "openBookmarkLevels": "-1"}}},
		{name: "updateIndexes", form: formOf("updateIndexes", "true"), want: LibreOfficeOptions{UpdateIndexes: true}},
		{name: "skipEmptyPages", form: formOf("skipEmptyPages", "1"), want: LibreOfficeOptions{Options: map[string]string{"skipEmptyPages": "true"}}},
		{name: "viewer options", form: formOf("initialView", "2", "pageLayout", "3", "hideViewerToolbar", "true", "openBookmarkLevels", " 10 "),
			want: LibreOfficeOptions{Options: map[string]string{"initialView": "2", "pageLayout": "3", "hideViewerToolbar": "true", "openBookmarkLevels": "10"}}},
		{name: "initialView bad", form: formOf("initialView", "5"), wantErr: "Invalid form data: form field 'initialView' is invalid (got '5', resulting to value is not 0, 1 or 2)"},
		{name: "openBookmarkLevels 0", form: formOf("openBookmarkLevels", "0"), wantErr: "Invalid form data: form field 'openBookmarkLevels' is invalid (got '0', resulting to value is not -1 or between 1 and 10)"},
		{name: "exportPlaceholders bad", form: formOf("exportPlaceholders", "foo"), wantErr: "Invalid form data: form field 'exportPlaceholders' is invalid (got 'foo', resulting to strconv.ParseBool: parsing \"foo\": invalid syntax)"},
		{name: "zoom", form: formOf("zoom", "50"), want: LibreOfficeOptions{Options: map[string]string{"zoom": "50"}}},
		{name: "zoom bad", form: formOf("zoom", "x"), wantErr: "Invalid form data: form field 'zoom' is invalid (got 'x', resulting to strconv.Atoi: parsing \"x\": invalid syntax)"},
		{name: "native watermark, Gotenberg's colour", form: formOf("nativeWatermarkText", "DRAFT"),
			want: LibreOfficeOptions{NativeWatermark: NativeWatermark{Text: "DRAFT", Color: 8388223}}},
		{name: "native watermark options", form: formOf("nativeWatermarkText", "DRAFT", "nativeWatermarkColor", "16711680",
			"nativeWatermarkFontHeight", "48", "nativeWatermarkRotateAngle", "450", "nativeWatermarkFontName", "Courier"),
			want: LibreOfficeOptions{NativeWatermark: NativeWatermark{Text: "DRAFT", Color: 0xFF0000, FontHeight: 48, RotateAngle: 450, FontName: "Courier"}}},
		{name: "watermark options without text", form: formOf("nativeWatermarkColor", "255", "nativeWatermarkFontName", "Courier"), want: LibreOfficeOptions{}},
		{name: "tiled watermark", form: formOf("nativeTiledWatermarkText", "SECRET"), want: LibreOfficeOptions{NativeWatermark: NativeWatermark{Tiled: "SECRET"}}},
		{name: "watermark colour bad", form: formOf("nativeWatermarkText", "D", "nativeWatermarkColor", "red"),
			wantErr: "Invalid form data: form field 'nativeWatermarkColor' is invalid (got 'red', resulting to strconv.Atoi: parsing \"red\": invalid syntax)"},
		{name: "watermark font height bad", form: formOf("nativeWatermarkFontHeight", "-1"),
			wantErr: "Invalid form data: form field 'nativeWatermarkFontHeight' is invalid (got '-1', resulting to value is inferior to 0)"},
		{name: "watermark text with a line break", form: formOf("nativeWatermarkText", "A\nB"),
			wantErr: "Invalid form data: form field 'nativeWatermarkText' is invalid (got 'AB', want text without control characters)"},
		{name: "bookmarks to destinations", form: formOf("exportBookmarksToPdfDestination", "true"), want: LibreOfficeOptions{ExportBookmarksToPdfDestination: true}},
		{name: "optimizeImages", form: formOf("optimizeImages", "true", "imageQuality", "0"), wantErr: "Invalid form data: form field 'imageQuality' is invalid (got '0', resulting to value is inferior to 1)"},
		{name: "factur-x without its XML", form: formOf("facturxConformanceLevel", "BASIC"), wantErr: "Invalid form data: 'facturxConformanceLevel' and 'facturxXml' are both required"},
		{name: "factur-x without its level", form: &Form{fields: map[string][]string{}, Files: []File{{Name: "a.xml", Path: "/d/0001.xml", Field: "facturxXml"}}},
			wantErr: "Invalid form data: 'facturxConformanceLevel' and 'facturxXml' are both required"},
		{name: "factur-x", form: &Form{fields: formOf("facturxConformanceLevel", "BASIC").fields, Files: []File{{Name: "a.xml", Path: "/d/0001.xml", Field: "facturxXml"}}},
			want: LibreOfficeOptions{Post: Post{FacturX: &pdf.FacturX{XML: "/d/0001.xml", Level: "BASIC"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LibreOffice(tc.form)
			if msg := errMsg(err); msg != tc.wantErr {
				t.Fatalf("error %q, want %q", msg, tc.wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// The post-processing fields, shared by /forms/libreoffice/convert and
// /forms/pdfengines/{merge,split}.
func TestPost(t *testing.T) {
	markFile := File{Name: "logo.png", Path: "/d/0002.png", Field: "watermark"}
	for _, tc := range []struct {
		name    string
		form    *Form
		want    Post
		wantErr string
	}{
		{name: "split intervals", form: formOf("splitMode", "intervals", "splitSpan", " 2 "),
			want: Post{Split: &Split{Mode: "intervals", Span: "2"}}},
		{name: "split pages unify", form: formOf("splitMode", "pages", "splitSpan", "1-3, 5", "splitUnify", "true"),
			want: Post{Split: &Split{Mode: "pages", Span: "1-3,5", Unify: true}}},
		{name: "split mode bad", form: formOf("splitMode", "chunks", "splitSpan", "2"),
			wantErr: "Invalid form data: form field 'splitMode' is invalid (got 'chunks', resulting to wrong value, expected either 'intervals' or 'pages')"},
		{name: "split span missing", form: formOf("splitMode", "pages"),
			wantErr: "Invalid form data: form field 'splitSpan' is required"},
		{name: "split span not a count", form: formOf("splitMode", "intervals", "splitSpan", "1-2"),
			wantErr: "Invalid form data: form field 'splitSpan' is invalid (got '1-2', resulting to strconv.Atoi: parsing \"1-2\": invalid syntax)"},
		{name: "split span zero", form: formOf("splitMode", "intervals", "splitSpan", "0"),
			wantErr: "Invalid form data: form field 'splitSpan' is invalid (got '0', resulting to value is inferior to 1)"},
		{name: "split span bad pages", form: formOf("splitMode", "pages", "splitSpan", "1-2/3"),
			wantErr: "The requested split mode is not supported, or no PDF engine could process it. Valid modes: 'intervals', 'pages'."},
		{name: "split unify with intervals", form: formOf("splitMode", "intervals", "splitSpan", "2", "splitUnify", "true"),
			wantErr: "Invalid form data: form field 'splitUnify' is invalid (got 'true', want false with splitMode 'intervals')"},
		{name: "split span alone is ignored", form: formOf("splitSpan", "2")},
		{name: "watermark text", form: formOf("watermarkSource", "text", "watermarkExpression", "DRAFT",
			"watermarkPages", "1-3", "watermarkOptions", `{"rotation":45,"opacity":"0.5","fontname":"Helvetica","diagonal":true}`),
			want: Post{Watermark: &Mark{Source: "text", Text: "DRAFT", Pages: "1-3",
				Description: "diagonal:true, fontname:Helvetica, opacity:0.5, rotation:45"}}},
		{name: "stamp text", form: formOf("stampSource", "text", "stampExpression", "OK"),
			want: Post{Stamp: &Mark{Source: "text", Text: "OK"}}},
		{name: "watermark image", form: &Form{fields: formOf("watermarkSource", "image").fields, Files: []File{{Name: "a.pdf", Field: "files"}, markFile}},
			want: Post{Watermark: &Mark{Source: "image", File: "/d/0002.png"}}},
		{name: "watermark image without file", form: formOf("watermarkSource", "image"),
			wantErr: "Invalid form data: a watermark file is required for image or pdf source"},
		{name: "watermark text without expression", form: formOf("watermarkSource", "text"),
			wantErr: "Invalid form data: form field 'watermarkExpression' is required"},
		{name: "watermark source bad", form: formOf("watermarkSource", "html"),
			wantErr: "Invalid form data: form field 'watermarkSource' is invalid (got 'html', want 'text', 'image' or 'pdf')"},
		{name: "two watermarks, one without expression", form: formOf("watermarkSource", "text", "watermarkSource", "text", "watermarkExpression", "A"),
			wantErr: "Invalid form data: form field 'watermarkExpression' is required"},
		{name: "watermark options not an object", form: formOf("watermarkSource", "text", "watermarkExpression", "x", "watermarkOptions", `["a"]`),
			wantErr: "Invalid form data: form field 'watermarkOptions' is invalid (got '[\"a\"]', want a JSON object of pdfcpu options with plain values)"},
		{name: "watermark options injecting", form: formOf("watermarkSource", "text", "watermarkExpression", "x", "watermarkOptions", `{"opacity":"0.5, scale:9"}`),
			wantErr: "Invalid form data: form field 'watermarkOptions' is invalid (got '{\"opacity\":\"0.5, scale:9\"}', want a JSON object of pdfcpu options with plain values)"},
		{name: "watermark options nested", form: formOf("watermarkSource", "text", "watermarkExpression", "x", "watermarkOptions", `{"a":{}}`),
			wantErr: "Invalid form data: form field 'watermarkOptions' is invalid (got '{\"a\":{}}', want a JSON object of pdfcpu options with plain values)"},
		{name: "watermark pages bad", form: formOf("watermarkSource", "text", "watermarkExpression", "x", "watermarkPages", "1;$(x)"),
			wantErr: "Invalid form data: form field 'watermarkPages' is invalid (got '1;$(x)', want pages like '1-3,5', 'even' or 'odd')"},
		{name: "rotate", form: formOf("rotateAngle", "270", "rotatePages", "odd"), want: Post{Rotate: &Rotation{Angle: 270, Pages: "odd"}}},
		{name: "rotate bad", form: formOf("rotateAngle", "45"),
			wantErr: "Invalid form data: form field 'rotateAngle' is invalid (got '45', resulting to wrong value, expected 90, 180, or 270)"},
		{name: "rotate pages alone ignored", form: formOf("rotatePages", "1")},
		{name: "flatten", form: formOf("flatten", "true"), want: Post{Flatten: true}},
		{name: "metadata", form: formOf("metadata", `{"Title":"T","Pages":3}`),
			want: Post{Metadata: map[string]any{"Title": "T", "Pages": json.Number("3")}}},
		{name: "metadata bad", form: formOf("metadata", `{"Title":`),
			wantErr: "Invalid form data: form field 'metadata' is invalid (got '{\"Title\":', resulting to unmarshal metadata: unexpected end of JSON input)"},
		{name: "metadata not JSON, in Gotenberg's words", form: formOf("metadata", "foo"),
			wantErr: "Invalid form data: form field 'metadata' is invalid (got 'foo', resulting to unmarshal metadata: invalid character 'o' in literal false (expecting 'a'))"},
		{name: "encrypt", form: formOf("userPassword", "u", "ownerPassword", "o", "allowPrinting", "false", "allowCopying", "false"),
			want: Post{Encrypt: &Encryption{UserPassword: "u", OwnerPassword: "o", Permissions: Permissions{
				AllowModifying: true, AllowAnnotating: true, AllowFillingForms: true, AllowAssembling: true}}}},
		{name: "owner password only", form: formOf("ownerPassword", "o"),
			want: Post{Encrypt: &Encryption{OwnerPassword: "o", Permissions: Permissions{true, true, true, true, true, true}}}},
		{name: "restricting without password", form: formOf("allowAssembling", "false"),
			wantErr: "Invalid form data: permission restrictions require a 'userPassword' or 'ownerPassword'"},
		{name: "allowing without password is no encryption", form: formOf("allowPrinting", "true")},
		{name: "pdfa with user password", form: formOf("pdfa", "PDF/A-1b", "userPassword", "u"),
			wantErr: "Invalid form data: PDF/A format is incompatible with encryption"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LibreOffice(tc.form)
			if msg := errMsg(err); msg != tc.wantErr {
				t.Fatalf("error %q, want %q", msg, tc.wantErr)
			}
			if err == nil && !reflect.DeepEqual(got.Post, tc.want) {
				t.Errorf("got %+v\nwant %+v", got.Post, tc.want)
			}
		})
	}
}
