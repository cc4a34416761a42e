package pdu

import (
	"errors"
	"fmt"
	"time"
)

// Timestamps (SCTS, discharge time, absolute validity) are seven octets of
// swapped BCD: year, month, day, hour, minute, second and the time zone in
// quarter-hours, whose sign is bit 3 of its octet (TS 23.040 §9.2.3.11).

func swapBCD(v int) byte { return byte(v%10)<<4 | byte(v/10%10) }

func encodeTimestamp(t time.Time) []byte {
	_, off := t.Zone()
	q := off / (15 * 60)
	neg := q < 0
	if neg {
		q = -q
	}
	tz := swapBCD(q)
	if neg {
		tz |= 0x08
	}
	return []byte{swapBCD(t.Year() % 100), swapBCD(int(t.Month())), swapBCD(t.Day()),
		swapBCD(t.Hour()), swapBCD(t.Minute()), swapBCD(t.Second()), tz}
}

var errBCD = errors.New("not a BCD digit")

// timestamp reads a seven-octet timestamp; years are 2000-2099.
func (r *reader) timestamp(field string) (time.Time, error) {
	start := r.off
	b, err := r.bytes(field, 7)
	if err != nil {
		return time.Time{}, err
	}
	var v [6]int
	for i := range v {
		lo, hi := int(b[i]&0x0F), int(b[i]>>4)
		if lo > 9 || hi > 9 {
			return time.Time{}, &DecodeError{Field: field, Offset: start + i, Err: fmt.Errorf("%w: %02X", errBCD, b[i])}
		}
		v[i] = lo*10 + hi
	}
	tens, units := int(b[6]&0x07), int(b[6]>>4)
	if units > 9 {
		return time.Time{}, &DecodeError{Field: field, Offset: start + 6, Err: fmt.Errorf("%w: %02X", errBCD, b[6])}
	}
	q := tens*10 + units
	if b[6]&0x08 != 0 {
		q = -q
	}
	t := time.Date(2000+v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], 0, time.FixedZone("", q*15*60))
	if int(t.Month()) != v[1] || t.Day() != v[2] || v[3] > 23 || v[4] > 59 || v[5] > 59 {
		return time.Time{}, &DecodeError{Field: field, Offset: start, Err: fmt.Errorf("no such date or time: %X", b[:6])}
	}
	return t, nil
}

// Relative validity (TS 23.040 §9.2.3.12.1): 0-143 → (VP+1)·5 min;
// 144-167 → 12 h + (VP-143)·30 min; 168-196 → (VP-166) days;
// 197-255 → (VP-192) weeks.

// MaxValidity is the longest relative validity period, 63 weeks.
const MaxValidity = 63 * 7 * 24 * time.Hour

// ValidityPeriod returns the relative validity octet for d: the shortest
// encodable period not shorter than d (at least 5 minutes).
func ValidityPeriod(d time.Duration) (byte, error) {
	ceil := func(d, unit time.Duration) int { return int((d + unit - 1) / unit) }
	switch {
	case d <= 0 || d > MaxValidity:
		return 0, fmt.Errorf("validity %v is not between 0 and 63 weeks", d)
	case d <= 12*time.Hour:
		return byte(max(ceil(d, 5*time.Minute)-1, 0)), nil
	case d <= 24*time.Hour:
		return byte(143 + ceil(d-12*time.Hour, 30*time.Minute)), nil
	case d <= 30*24*time.Hour:
		return byte(166 + max(ceil(d, 24*time.Hour), 2)), nil
	}
	return byte(192 + max(ceil(d, 7*24*time.Hour), 5)), nil
}

// ValidityDuration is the period a relative validity octet stands for.
func ValidityDuration(vp byte) time.Duration {
	v := time.Duration(vp)
	switch {
	case vp <= 143:
		return (v + 1) * 5 * time.Minute
	case vp <= 167:
		return 12*time.Hour + (v-143)*30*time.Minute
	case vp <= 196:
		return (v - 166) * 24 * time.Hour
	}
	return (v - 192) * 7 * 24 * time.Hour
}
