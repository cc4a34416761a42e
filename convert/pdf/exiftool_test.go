package pdf

import (
	"encoding/json"
	"testing"
)

// TestExifToolJSON: metadata in ExifTool's JSON shape, as Gotenberg's
// metadata/read answers it.
func TestExifToolJSON(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]string
		want string // JSON
	}{
		{"numbers", map[string]string{"PDFVersion": "1.7", "PageCount": "3"}, `{"PDFVersion":1.7,"PageCount":3}`},
		{"not numbers", map[string]string{"Title": "007", "Subject": "1.2.3", "Author": "12345678901234567890"},
			`{"Title":"007","Subject":"1.2.3","Author":"12345678901234567890"}`},
		{"dates in ExifTool's format", map[string]string{"CreationDate": "2006-09-18T16:27:50-04:00", "ModDate": "2025-02-17T14:46:38Z"},
			`{"CreateDate":"2006:09:18 16:27:50-04:00","ModDate":"2025:02:17 14:46:38Z"}`},
		{"a custom CreateDate beside CreationDate", map[string]string{"CreationDate": "2006-09-18T16:27:50-04:00", "CreateDate": "forged"},
			`{"CreateDate":"2006:09:18 16:27:50-04:00"}`},
		{"a date as written", map[string]string{"ModDate": "yesterday"}, `{"ModDate":"yesterday"}`},
		{"keywords", map[string]string{"Keywords": "first, second"}, `{"Keywords":["first","second"]}`},
		{"one keyword", map[string]string{"Keywords": "first"}, `{"Keywords":"first"}`},
		{"marked", map[string]string{"Marked": "True", "Trapped": "Unknown"}, `{"Marked":true,"Trapped":"Unknown"}`},
		{"not marked", map[string]string{"Marked": "false"}, `{"Marked":false}`},
		{"strings", map[string]string{"Producer": "Gotenberg", "Copyright": "Julien"}, `{"Producer":"Gotenberg","Copyright":"Julien"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(ExifToolJSON(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			json.Unmarshal(b, &got)
			if gb, wb := mustJSON(t, got), mustJSON(t, want); gb != wb {
				t.Errorf("got %s, want %s", gb, wb)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
