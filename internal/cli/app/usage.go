package app

// Usage errors that say what to fix: an unknown flag is shown as typed,
// with a "did you mean"; a bad value names the flag and what it needs.

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
)

var (
	reUnknownFlag = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)
	reBadValue    = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]+): (.*)$`)
	reNoValue     = regexp.MustCompile(`^flag needs an argument: -+(.+)$`)
)

// onUsageError turns flag parsing errors (unknown flag, missing or
// unparsable value) into usage errors that name the flag as typed.
func onUsageError(c *cli.Context, err error, _ bool) error {
	flags := commandFlags(c)
	msg := err.Error()
	hint := base.HelpHint(c)
	switch {
	case reUnknownFlag.MatchString(msg):
		name := reUnknownFlag.FindStringSubmatch(msg)[1]
		msg = fmt.Sprintf("unknown flag %s", typed(c, name))
		if s := suggestFlag(flags, name); s != "" {
			hint = fmt.Sprintf("did you mean %s? %s", s, hint)
		}
	case reBadValue.MatchString(msg):
		m := reBadValue.FindStringSubmatch(msg)
		msg = fmt.Sprintf("invalid value %q for %s: %s", m[1], dashed(m[2]), valueProblem(findFlag(flags, m[2]), m[1], m[3]))
	case reNoValue.MatchString(msg):
		name := reNoValue.FindStringSubmatch(msg)[1]
		msg = fmt.Sprintf("%s needs a value", typed(c, name))
	}
	return &base.UsageError{Err: errors.New(msg), Help: hint}
}

// commandFlags are the flags of the command c runs: the app's at the top.
func commandFlags(c *cli.Context) []cli.Flag {
	if c.Command != nil && c.Command.Name != "" {
		return c.Command.Flags
	}
	return c.App.Flags
}

// typed returns the flag name as the user typed it (-x, --name), looked
// up in the command line, else with the usual dashes.
func typed(c *cli.Context, name string) string {
	argv, _ := c.App.Metadata[base.MetaArgv].([]string)
	for _, w := range argv {
		if w == "--" {
			break
		}
		if n, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "="); n == name && strings.HasPrefix(w, "-") {
			if v, _, ok := strings.Cut(w, "="); ok {
				return v
			}
			return w
		}
	}
	return dashed(name)
}

// dashed writes a flag name as GNU tools do: -x, --name.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// valueProblem says what a flag's value must be, for flag parsing's
// terse "parse error".
func valueProblem(f cli.Flag, value, reason string) string {
	switch f.(type) {
	case *cli.DurationFlag:
		if _, err := strconv.ParseFloat(value, 64); err == nil {
			return fmt.Sprintf("a duration needs a unit: %ss, %sm or %sh", value, value, value)
		}
		return "not a duration (such as 90s, 5m or 1h30m)"
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
		return "not a whole number"
	case *cli.Float64Flag:
		return "not a number"
	case *cli.BoolFlag:
		return "a switch takes no value other than true or false"
	}
	return reason
}

// suggestFlag returns the flag of flags closest to name, dashed, or "".
func suggestFlag(flags []cli.Flag, name string) string {
	best, bestD := "", 3
	if len(name) <= 3 {
		bestD = 2
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			d := editDistance(strings.ToLower(name), strings.ToLower(n))
			if len(n) > 1 && len(name) >= 3 && strings.HasPrefix(n, name) {
				d = 1
			}
			if d < bestD {
				best, bestD = dashed(f.Names()[0]), d
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = slices.Min([]int{prev[j] + 1, cur[j-1] + 1, prev[j-1] + cost})
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
