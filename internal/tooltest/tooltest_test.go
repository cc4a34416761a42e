package tooltest

import (
	"testing"
)

// recorder is a testing.TB that records how Require ends the test.
type recorder struct {
	testing.TB
	fatal, skip bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.fatal = true }
func (r *recorder) Skipf(string, ...any)  { r.skip = true }

func TestRequire(t *testing.T) {
	tests := []struct {
		name, program, env  string
		wantPath            bool
		wantFatal, wantSkip bool
	}{
		{"present", "sh", "", true, false, false},
		{"missing skips", "calq-no-such-tool", "", false, false, true},
		{"missing fails in CI", "calq-no-such-tool", "1", false, true, false},
		{"other values skip", "calq-no-such-tool", "0", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(RequireEnv, tt.env)
			r := &recorder{TB: t}
			path := Require(r, tt.program)
			if (path != "") != tt.wantPath || r.fatal != tt.wantFatal || r.skip != tt.wantSkip {
				t.Errorf("Require(%q) with %s=%q: path %q, fatal %v, skip %v; want path %v, fatal %v, skip %v",
					tt.program, RequireEnv, tt.env, path, r.fatal, r.skip, tt.wantPath, tt.wantFatal, tt.wantSkip)
			}
		})
	}
}
