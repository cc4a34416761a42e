package base

import (
	"fmt"
	"strings"
	"time"
)

// OrDash is s, or "-" for an empty cell of a table.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Plural writes n and the noun, made plural unless n is 1.
func Plural(n int, noun string) string {
	switch {
	case n == 1:
	case strings.HasSuffix(noun, "y"):
		noun = strings.TrimSuffix(noun, "y") + "ies"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// Seconds renders a duration in seconds for a table: "-" for none.
func Seconds(s *float64) string {
	if s == nil {
		return "-"
	}
	d := time.Duration(*s * float64(time.Second))
	if d >= time.Millisecond {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// Ratio renders a ratio to three significant digits: "-" for none.
func Ratio(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3g", *v)
}

// YesNo renders a switch for a table.
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
