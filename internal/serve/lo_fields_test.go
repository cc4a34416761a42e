package serve

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"calq/internal/pdftest"
)

// TestLibreOfficeNativeFields: the libreoffice route's fields for
// LibreOffice's own watermarks and bookmark destinations, each seen in
// the PDF calq serve answers with.
func TestLibreOfficeNativeFields(t *testing.T) {
	ts := newTestServer(t, nil)
	doc := upload{"files", "marked.fodt", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"
 office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text>
<text:h text:outline-level="1">Heading</text:h><text:p><text:bookmark text:name="calqmark"/>Body text</text:p>
</office:text></office:body></office:document>`)}
	tests := []struct {
		name     string
		fields   map[string]string
		text     []string // in the PDF's text, spaces dropped
		not      []string
		holds    string // in the PDF's bytes
		lacks    string
		wantCode int
		wantBody string
	}{
		{name: "plain", text: []string{"Bodytext"}, not: []string{"CONFIDENTIAL"}, lacks: "calqmark"},
		{name: "native watermark", fields: map[string]string{"nativeWatermarkText": "CONFIDENTIAL"}, text: []string{"CONFIDENTIAL", "Bodytext"}},
		{name: "native watermark with options", fields: map[string]string{"nativeWatermarkText": "DRAFT",
			"nativeWatermarkColor": "16711680", "nativeWatermarkFontHeight": "48", "nativeWatermarkRotateAngle": "450",
			"nativeWatermarkFontName": "Courier"}, text: []string{"DRAFT"}},
		{name: "native tiled watermark", fields: map[string]string{"nativeTiledWatermarkText": "SECRET"}, text: []string{"SE", "Bodytext"}},
		{name: "bookmarks to destinations", fields: map[string]string{"exportBookmarksToPdfDestination": "true"}, holds: "calqmark"},
		{name: "bad colour", fields: map[string]string{"nativeWatermarkText": "D", "nativeWatermarkColor": "-1"},
			wantCode: http.StatusBadRequest, wantBody: "form field 'nativeWatermarkColor' is invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, ts.URL+"/forms/libreoffice/convert", []upload{doc}, tt.fields, nil)
			b := body(t, resp)
			if tt.wantCode != 0 {
				if resp.StatusCode != tt.wantCode || !strings.Contains(string(b), tt.wantBody) {
					t.Fatalf("got %d %q, want %d saying %q", resp.StatusCode, b, tt.wantCode, tt.wantBody)
				}
				return
			}
			if resp.StatusCode != 200 {
				t.Fatalf("got status %d (%s), want 200", resp.StatusCode, b)
			}
			pdftest.CheckText(t, pdfFile(t, b), tt.text, tt.not)
			if tt.holds != "" && !bytes.Contains(b, []byte(tt.holds)) {
				t.Errorf("the PDF does not hold %q, want it to", tt.holds)
			}
			if tt.lacks != "" && bytes.Contains(b, []byte(tt.lacks)) {
				t.Errorf("the PDF holds %q, want it not to", tt.lacks)
			}
		})
	}
}
