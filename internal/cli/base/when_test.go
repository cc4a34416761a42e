package base

import (
	"testing"
	"time"
)

func TestParseAt(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, in string
		want     time.Time
		wantErr  bool
	}{
		{"duration", "+10m", now.Add(10 * time.Minute), false},
		{"clock later today", "15:04", time.Date(2026, 11, 22, 15, 4, 0, 0, time.UTC), false},
		{"clock passed is tomorrow", "09:30:15", time.Date(2026, 11, 23, 9, 30, 15, 0, time.UTC), false},
		{"date and time", "2026-12-01 08:00", time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC), false},
		{"RFC 3339", "2026-12-01T08:00:00+01:00", time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC), false},
		{"negative duration", "+-1s", time.Time{}, true},
		{"bad duration", "+soon", time.Time{}, true},
		{"nonsense", "noon", time.Time{}, true},
		{"bad clock", "99:99", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAt(tt.in, now)
			if (err != nil) != tt.wantErr || !got.Equal(tt.want) {
				t.Errorf("ParseAt(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	loc := time.FixedZone("X", 2*3600)
	tests := []struct {
		name, in string
		want     time.Time
		ok       bool
	}{
		{"date", "2026-01-02", time.Date(2026, 1, 2, 0, 0, 0, 0, loc), true},
		{"date and minutes", "2026-01-02 03:04", time.Date(2026, 1, 2, 3, 4, 0, 0, loc), true},
		{"date and seconds", "2026-01-02 03:04:05", time.Date(2026, 1, 2, 3, 4, 5, 0, loc), true},
		{"T without zone", "2026-01-02T03:04", time.Date(2026, 1, 2, 3, 4, 0, 0, loc), true},
		{"RFC 3339 keeps its zone", "2026-01-02T03:04:05Z", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), true},
		{"clock alone", "03:04", time.Time{}, false},
		{"empty", "", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseDate(tt.in, loc)
			if ok != tt.ok || !got.Equal(tt.want) {
				t.Errorf("ParseDate(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, in string
		want     time.Time
		wantErr  string
	}{
		{"empty is zero", "", time.Time{}, ""},
		{"date", "2026-11-01", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), ""},
		{"hours ago", "90m", now.Add(-90 * time.Minute), ""},
		{"days ago", "7d", now.AddDate(0, 0, -7), ""},
		{"negative days", "-1d", time.Time{}, `--since: "-1d" is not a time (RFC 3339, 2006-01-02, '2006-01-02 15:04') or a duration ago (24h, 7d)`},
		{"days overflow", "999999999d", time.Time{}, `--since: "999999999d" is not a time (RFC 3339, 2006-01-02, '2006-01-02 15:04') or a duration ago (24h, 7d)`},
		{"negative duration", "-1h", time.Time{}, `--since: "-1h" is not a time (RFC 3339, 2006-01-02, '2006-01-02 15:04') or a duration ago (24h, 7d)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseWhen("since", tt.in, now)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr || !got.Equal(tt.want) {
				t.Errorf("ParseWhen(%q) = %v, %q; want %v, %q", tt.in, got, gotErr, tt.want, tt.wantErr)
			}
		})
	}
}
