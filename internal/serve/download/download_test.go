package download

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"calq/internal/serve/form"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, raw string
		want      []Entry // when no error
		wantErr   string  // a part of the 400's sentence
	}{
		{name: "empty", raw: "  "},
		{name: "one", raw: `[{"url":"http://example.com/a.docx","extraHttpHeaders":{"x-foo":"bar"}}]`,
			want: []Entry{{URL: "http://example.com/a.docx", ExtraHTTPHeaders: map[string]string{"X-Foo": "bar"}}}},
		{name: "fields", raw: `[{"url":"https://e.com/1","embedded":true},{"url":"https://e.com/2","field":"stamp"}]`,
			want: []Entry{{URL: "https://e.com/1", ExtraHTTPHeaders: map[string]string{}, Embedded: true},
				{URL: "https://e.com/2", ExtraHTTPHeaders: map[string]string{}, Field: "stamp"}}},
		{name: "not json", raw: `{"url":`, wantErr: "Invalid 'downloadFrom' form field value: "},
		{name: "object, not list", raw: `{"url":"http://e.com"}`, wantErr: "Invalid 'downloadFrom' form field value: "},
		{name: "no url", raw: `[{"url":"http://e.com/a"},{"url":" "}]`, wantErr: "Invalid 'downloadFrom' form field entry 1: URL must be set"},
		{name: "file scheme", raw: `[{"url":"file:///etc/passwd"}]`, wantErr: "entry 0: URL must be an absolute http or https URL"},
		{name: "relative", raw: `[{"url":"/static/a.docx"}]`, wantErr: "entry 0: URL must be an absolute http or https URL"},
		{name: "unknown field", raw: `[{"url":"http://e.com/a","field":"files2"}]`, wantErr: `entry 0: field must be 'embedded', 'watermark' or 'stamp', not "files2"`},
		{name: "header split", raw: `[{"url":"http://e.com/a","extraHttpHeaders":{"X-A":"b\r\nX-B: c"}}]`, wantErr: "entry 0: extraHttpHeaders: the value of X-A has control characters"},
		{name: "framing header", raw: `[{"url":"http://e.com/a","extraHttpHeaders":{"Host":"intranet"}}]`, wantErr: "entry 0: extraHttpHeaders: the header Host may not be set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.raw)
			if tt.wantErr != "" {
				var fe *form.Error
				if !errors.As(err, &fe) || fe.Status != http.StatusBadRequest || !strings.Contains(fe.Msg, tt.wantErr) {
					t.Fatalf("got error %v, want a 400 saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d entries, want %d", len(got), len(tt.want))
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.URL != w.URL || g.Embedded != w.Embedded || g.Field != w.Field || len(g.ExtraHTTPHeaders) != len(w.ExtraHTTPHeaders) {
					t.Fatalf("entry %d: got %+v, want %+v", i, g, w)
				}
				for k, v := range w.ExtraHTTPHeaders {
					if g.ExtraHTTPHeaders[k] != v {
						t.Errorf("entry %d: got header %s %q, want %q", i, k, g.ExtraHTTPHeaders[k], v)
					}
				}
			}
		})
	}
}

func TestFormField(t *testing.T) {
	tests := []struct {
		e    Entry
		want string
	}{
		{Entry{}, "files"},
		{Entry{Embedded: true}, "embeds"},
		{Entry{Field: "embedded"}, "embeds"},
		{Entry{Field: "watermark"}, "watermark"},
		{Entry{Field: "stamp"}, "stamp"},
	}
	for _, tt := range tests {
		if got := tt.e.formField(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.e, got, tt.want)
		}
	}
}
