package base

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// WhenHelp says what the TIME of --since, --until and --before may be.
const WhenHelp = "TIME is RFC 3339, 2006-01-02 or '2006-01-02 15:04' (local time), or a\n" +
	"duration ago such as 90m, 24h or 7d."

// ParseWhen reads the TIME of --since, --until and --before (see
// WhenHelp); the empty string is the zero time.
func ParseWhen(flag, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, ok := ParseDate(s, now.Location()); ok {
		return t, nil
	}
	if d, ok := parseAgo(s); ok {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--%s: %q is not a time (RFC 3339, 2006-01-02, '2006-01-02 15:04') "+
		"or a duration ago (24h, 7d)", flag, s)
}

// parseAgo reads a non-negative Go duration, or a whole number of days
// ("7d").
func parseAgo(s string) (time.Duration, bool) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64/int64(24*time.Hour) {
			return 0, false
		}
		return time.Duration(n) * 24 * time.Hour, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil && d >= 0
}

// ParseAt reads a start time: a clock time today (tomorrow if it has
// passed), a date and time, RFC 3339, or +DURATION from now.
func ParseAt(s string, now time.Time) (time.Time, error) {
	if d, ok := strings.CutPrefix(s, "+"); ok {
		dur, err := time.ParseDuration(d)
		if err != nil || dur < 0 {
			return time.Time{}, fmt.Errorf("%q: want +DURATION such as +10m", s)
		}
		return now.Add(dur), nil
	}
	for _, layout := range []string{"15:04", "15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			at := time.Date(now.Year(), now.Month(), now.Day(), t.Hour(), t.Minute(), t.Second(), 0, now.Location())
			if at.Before(now) {
				at = at.AddDate(0, 0, 1)
			}
			return at, nil
		}
	}
	if t, ok := ParseDate(s, now.Location()); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q: want 15:04, '2006-01-02 15:04', RFC 3339 or +10m", s)
}

// ParseDate reads the absolute times calq's time flags take: RFC 3339, or
// a date with an optional time of day in loc.
func ParseDate(s string, loc *time.Location) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	for _, layout := range []string{time.DateOnly, "2006-01-02 15:04", "2006-01-02 15:04:05", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
