package schedcmd

import (
	"calq/sched/schedbench"
	"fmt"
	"testing"
)

// TestBenchDefaults checks that the defaults of calq sched bench name only
// queues, models and distributions that sched knows.
func TestBenchDefaults(t *testing.T) {
	valid := map[string][]string{"queue": schedbench.QueueNames, "model": schedbench.ModelNames, "dist": schedbench.DistNames}
	for _, f := range benchCommand().Flags {
		name := f.Names()[0]
		names, ok := valid[name]
		if !ok {
			continue
		}
		def := f.(interface{ GetValue() string }).GetValue()
		if _, err := parseNames(name, def, names); err != nil {
			t.Errorf("default of --%s: %v", name, err)
		}
	}
}

func TestParseSizes(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"1000", []int{1000}, false},
		{"1000, 10000 ,1", []int{1000, 10000, 1}, false},
		{"0", nil, true},
		{"-5", nil, true},
		{"1e6", nil, true},
		{"010", []int{10}, false}, // decimal, not octal
		{"1000,", nil, true},
		{"", nil, true},
	}
	for _, tt := range tests {
		got, err := parseSizes("size", tt.in)
		if (err != nil) != tt.wantErr || fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("parseSizes(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
