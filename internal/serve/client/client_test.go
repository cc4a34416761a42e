package client

import (
	"io"
	"maps"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"calq/convert/lo"
)

func TestNew(t *testing.T) {
	for _, c := range []struct {
		url, key, wantURL, wantKey string
		ok                         bool
	}{
		{"http://127.0.0.1:3000", "", "http://127.0.0.1:3000", "", true},
		{"https://pdf.example.com/", "k", "https://pdf.example.com", "k", true},
		{"http://ann:calq_secret@host:3000", "", "http://host:3000", "calq_secret", true},
		{"http://ann:urlkey@host", "envkey", "http://host", "envkey", true},
		{"ftp://host", "", "", "", false},
		{"host:3000", "", "", "", false},
		{"http://", "", "", "", false},
		{"::", "", "", "", false},
	} {
		cl, err := New(c.url, c.key)
		if (err == nil) != c.ok {
			t.Errorf("New(%q) error = %v, want ok %v", c.url, err, c.ok)
			continue
		}
		if err == nil && (cl.String() != c.wantURL || cl.key != c.wantKey) {
			t.Errorf("New(%q) = %s with key %q, want %s with %q", c.url, cl, cl.key, c.wantURL, c.wantKey)
		}
	}
}

func TestFields(t *testing.T) {
	no := false
	got := Fields(lo.ConvertOptions{PDFA: 2, Export: lo.Export{Landscape: true, PageRanges: "1-2", Quality: 80,
		MaxImageResolution: 150, ExportBookmarks: &no, Password: "pw"}})
	want := map[string]string{"pdfa": "PDF/A-2b", "landscape": "true", "nativePageRanges": "1-2", "quality": "80",
		"maxImageResolution": "150", "reduceImageResolution": "true", "exportBookmarks": "false", "password": "pw"}
	if !maps.Equal(got, want) {
		t.Errorf("Fields = %v\nwant %v", got, want)
	}
	if got := Fields(lo.ConvertOptions{}); len(got) != 0 {
		t.Errorf("Fields of nothing = %v", got)
	}
}

// TestFieldsNative: LibreOffice's own watermarks, bookmark destinations
// and the other export options reach calq serve as Gotenberg's fields; the colour always,
// since an absent one is Gotenberg's light green there.
func TestFieldsNative(t *testing.T) {
	tests := []struct {
		name string
		e    lo.Export
		want map[string]string
	}{
		{"watermark, default colour", lo.Export{NativeWatermarkText: "DRAFT"},
			map[string]string{"nativeWatermarkText": "DRAFT", "nativeWatermarkColor": "0"}},
		{"watermark options", lo.Export{NativeWatermarkText: "D", NativeWatermarkColor: 255, NativeWatermarkFontHeight: 48, NativeWatermarkRotateAngle: 450, NativeWatermarkFontName: "Courier"},
			map[string]string{"nativeWatermarkText": "D", "nativeWatermarkColor": "255", "nativeWatermarkFontHeight": "48", "nativeWatermarkRotateAngle": "450", "nativeWatermarkFontName": "Courier"}},
		{"tiled", lo.Export{NativeTiledWatermarkText: "S"}, map[string]string{"nativeTiledWatermarkText": "S"}},
		{"destinations", lo.Export{ExportBookmarksToPdfDestination: true}, map[string]string{"exportBookmarksToPdfDestination": "true"}},
		{"indexes", lo.Export{UpdateIndexes: true}, map[string]string{"updateIndexes": "true"}},
		{"other options", lo.Export{Options: map[string]string{"zoom": "50", "hideViewerToolbar": "true"}}, map[string]string{"zoom": "50", "hideViewerToolbar": "true"}},
	}
	for _, tt := range tests {
		if got := Fields(lo.ConvertOptions{Export: tt.e}); !maps.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestReadErrorRetryAfter: a 429's Retry-After is how long to wait; one
// too large for a duration waits as long as the caller's ctx lets it,
// not a negative time (which became 100 ms between retries).
func TestReadErrorRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"later", 0},
		{"0", 0},
		{"3", 3 * time.Second},
		{"9223372037", math.MaxInt64},
	} {
		resp := &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {tc.header}},
			Body: io.NopCloser(strings.NewReader("busy"))}
		if got := readError(resp).retry; got != tc.want {
			t.Errorf("Retry-After %q: wait %v, want %v", tc.header, got, tc.want)
		}
	}
}
