package base

import (
	"testing"
	"time"
)

// FuzzParseTimes: the time flags never panic, --at never answers a time in
// the past for a clock time, and +DURATION is exact.
func FuzzParseTimes(f *testing.F) {
	for _, s := range []string{"15:04", "+10m", "2026-01-02 03:04", "2026-01-02T03:04:05Z", "7d", "24h", "+-1s", "99:99"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseWhen("since", s, now)
		at, err := ParseAt(s, now)
		if err != nil {
			return
		}
		if d, perr := time.ParseDuration(s[min(1, len(s)):]); s[0] == '+' && perr == nil && !at.Equal(now.Add(d)) {
			t.Errorf("ParseAt(%q) = %v, want now+%v", s, at, d)
		}
		if _, cerr := time.Parse("15:04", s); cerr == nil && at.Before(now) {
			t.Errorf("ParseAt(%q) = %v, before now %v", s, at, now)
		}
	})
}
