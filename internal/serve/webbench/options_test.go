package webbench

import (
	"strings"
	"testing"
)

func TestOptionsDefaults(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		want    Options
		wantErr string
	}{
		{"zero", Options{}, Options{Documents: 20, Copies: 2, NaiveFiles: 6, Latency: 20, Memory: 1000}, ""},
		{"given", Options{Documents: 4, Copies: 1, NaiveFiles: 2, Latency: 3, Memory: 40},
			Options{Documents: 4, Copies: 1, NaiveFiles: 2, Latency: 3, Memory: 40}, ""},
		{"naive over documents", Options{Documents: 4, NaiveFiles: 5}, Options{}, "5 naive files, want 1 to the 4 documents"},
		{"negative copies", Options{Copies: -1}, Options{}, "-1 copies"},
		{"memory too small", Options{Memory: 19}, Options{}, "a memory run of 19 conversions"},
		{"too many documents", Options{Documents: 1001}, Options{}, "1001 documents"},
		{"negative tabs", Options{Tabs: -2}, Options{}, "-2 tabs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			err := o.Check()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("got %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || o != tt.want {
				t.Errorf("got %+v, %v; want %+v", o, err, tt.want)
			}
		})
	}
}
