package form

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Float is the field's number, which must lie in [lo, hi]; def when
// absent or invalid. A value that does not parse is said in
// strconv.ParseFloat's words, as Gotenberg says it; NaN and infinities
// are refused.
func (f *Form) Float(name string, def, lo, hi float64) float64 {
	v := f.Value(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil {
		f.invalidBy(name, err, "a number")
		return def
	}
	if err := floatRange(n, lo, hi); err != nil {
		f.invalidBecause(name, err)
		return def
	}
	return n
}

// floatRange says why n is not a finite number in [lo, hi], nil when it
// is, in the words of inRange.
func floatRange(n, lo, hi float64) error {
	switch {
	case math.IsNaN(n) || math.IsInf(n, 0):
		return fmt.Errorf("value is not a finite number")
	case n < lo:
		return fmt.Errorf("value is inferior to %s", strconv.FormatFloat(lo, 'g', -1, 64))
	case n > hi:
		return fmt.Errorf("value is superior to %s", strconv.FormatFloat(hi, 'g', -1, 64))
	}
	return nil
}

// inchesPer are the units a length field may end with, and how many of
// each make an inch, as Gotenberg reads them; a bare number is in
// inches.
var inchesPer = []struct {
	unit string
	per  float64
}{{"pt", 72}, {"px", 96}, {"in", 1}, {"mm", 25.4}, {"cm", 2.54}, {"pc", 6}}

// Inches is the field's length in inches ("8.5", "210mm", "11in",
// "72pt"...), finite and at most max inches; def when absent or
// invalid. Negative lengths are read: what a page cannot be printed on
// is for the caller to say. A number that does not parse is said in strconv.ParseFloat's
// words, as Gotenberg says it.
func (f *Form) Inches(name string, def, max float64) float64 {
	v := f.Value(name)
	if v == "" {
		return def
	}
	num, per := v, 1.0
	for _, u := range inchesPer {
		if strings.HasSuffix(v, u.unit) {
			num, per = strings.TrimSuffix(v, u.unit), u.per
			break
		}
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil {
		f.invalidBy(name, err, "a length such as 8.5in or 210mm")
		return def
	}
	n *= 1 / per // as Gotenberg computes it, to the last bit
	if err := floatRange(n, -max, max); err != nil {
		f.invalidValue(name, v, fmt.Sprintf("a length of at most %g inches", max))
		return def
	}
	return n
}

// Duration is the field's duration ("500ms", "2s"), which must lie in
// [0, max]; def when absent or invalid. A value that does not parse is
// said in time.ParseDuration's words, as Gotenberg says it.
func (f *Form) Duration(name string, def, max time.Duration) time.Duration {
	v := f.Value(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		f.invalidBy(name, err, "a duration such as 500ms or 2s")
		return def
	}
	if d < 0 || d > max {
		f.invalidValue(name, v, "a duration from 0 to "+max.String())
		return def
	}
	return d
}
