package base

import (
	"strings"
	"testing"
)

func TestWriteJSONLine(t *testing.T) {
	type job struct {
		Zeta        string   `json:"zeta"`
		Alpha       *float64 `json:"alpha"`
		MessageType string   `json:"message_type"`
		Text        string   `json:"text"`
	}
	tests := []struct {
		name    string
		v       any
		want    string
		wantErr string
	}{
		{"fields keep their order, message_type first and once", job{Zeta: "z", MessageType: "own", Text: "a<b&c"},
			`{"message_type":"job","zeta":"z","alpha":null,"text":"a<b&c"}` + "\n", ""},
		{"a map", map[string]int{"n": 1}, `{"message_type":"job","n":1}` + "\n", ""},
		{"not an object", []int{1}, "", "encode job: not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			err := WriteJSONLine(&b, "job", tt.v)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || b.String() != tt.want {
				t.Errorf("got %q, %v; want %q", b.String(), err, tt.want)
			}
		})
	}
}

func TestWriteJSONLines(t *testing.T) {
	var b strings.Builder
	if err := WriteJSONLines(&b, "n", []map[string]int{{"i": 1}, {"i": 2}}); err != nil {
		t.Fatal(err)
	}
	if want := "{\"message_type\":\"n\",\"i\":1}\n{\"message_type\":\"n\",\"i\":2}\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
