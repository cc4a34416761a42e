package lo

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStatsState derives the state from the instance's flags, without
// LibreOffice: a run watching the test's own process group stands in.
func TestStatsState(t *testing.T) {
	own := func() *run { return &run{watch: &groupWatch{pgid: syscall.Getpgrp()}} }
	tests := []struct {
		name    string
		inst    *Instance
		want    string
		wantRSS bool
	}{
		{"never started", &Instance{name: "lo-1"}, StateStopped, false},
		{"running", &Instance{name: "lo-1", run: own(), starts: 1}, StateIdle, true},
		{"converting", &Instance{name: "lo-1", run: own(), starts: 1, busy: true}, StateBusy, true},
		{"starting", &Instance{name: "lo-1", run: own(), starting: true, busy: true}, StateStarting, false},
		{"stopped after a recycle", &Instance{name: "lo-1", starts: 3, busy: true}, StateStopped, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.inst.Stats()
			if s.State != tt.want || s.Name != "lo-1" {
				t.Errorf("Stats() = %+v, want state %q of lo-1", s, tt.want)
			}
			if (s.RSS > 0) != tt.wantRSS {
				t.Errorf("RSS = %d, want positive: %v", s.RSS, tt.wantRSS)
			}
		})
	}
}

// TestInstanceStats counts conversions, failures and restarts through a
// real instance that recycles after two conversions.
func TestInstanceStats(t *testing.T) {
	sharedPool.get(t) // Require
	p, err := New(t.Context(), Options{Instances: 1, StateDir: t.TempDir(), MaxConversions: 2})
	if err != nil {
		t.Fatal(err)
	}
	inst := p.Instances()[0]
	if s := inst.Stats(); s.State != StateIdle || s.RSS <= 0 || s.Restarts != 0 || s.Conversions != 0 {
		t.Errorf("after New: %+v, want idle, some memory, no restart, no conversion", s)
	}
	dir := t.TempDir()
	whole, err := os.ReadFile(testdata(t, "sample_3.docx"))
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "truncated.docx")
	if err := os.WriteFile(broken, whole[:len(whole)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	convert := func(in string) error {
		return inst.Convert(t.Context(), in, filepath.Join(dir, "out.pdf"), ConvertOptions{})
	}
	for n := range 2 {
		if err := convert(testdata(t, "simple.odt")); err != nil {
			t.Fatalf("conversion %d: %v", n+1, err)
		}
	}
	if s := inst.Stats(); s.State != StateStopped || s.RSS != 0 || s.Conversions != 2 {
		t.Errorf("after MaxConversions: %+v, want stopped, no memory, 2 conversions", s)
	}
	if err := convert(broken); err == nil {
		t.Fatal("a truncated document converted")
	}
	if err := convert(testdata(t, "simple.odt")); err != nil {
		t.Fatalf("last conversion: %v", err)
	}
	want := InstanceStats{Name: "lo-1", State: StateIdle, Conversions: 3, Failures: 1, Restarts: 1}
	got := inst.Stats()
	if got.RSS <= 0 {
		t.Errorf("RSS of a running instance = %d, want positive", got.RSS)
	}
	got.RSS = 0
	if got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if s := inst.Stats(); s.State != StateStopped {
		t.Errorf("after Close: state %q, want %q", s.State, StateStopped)
	}
}
