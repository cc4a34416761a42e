package cq

import "fmt"

// Policy selects how a Queue decides its number of buckets.
type Policy int

const (
	// PolicyPRAM sizes the calendar from the M/M/1/N prediction of the
	// number of pending events (the default).
	PolicyPRAM Policy = iota
	// PolicyBrown is Brown's 1988 rule: double at NE > 2·NB, halve at
	// NE < NB/2 - 2.
	PolicyBrown
)

// ParsePolicy parses "pram" or "brown".
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "pram":
		return PolicyPRAM, nil
	case "brown":
		return PolicyBrown, nil
	}
	return 0, fmt.Errorf("unknown resize policy %q (want pram or brown)", s)
}

func (p Policy) String() string {
	switch p {
	case PolicyPRAM:
		return "pram"
	case PolicyBrown:
		return "brown"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}
