package chromium

import (
	"fmt"
	"time"

	"github.com/dlclark/regexp2"
)

// Pattern is an entry of an allow or deny list: *regexp.Regexp is one,
// and CompilePattern makes one of Gotenberg's syntax.
type Pattern interface {
	MatchString(s string) bool
	String() string
}

// patternTimeout bounds one match: a pattern with backtracking can take
// exponential time on a long URL.
const patternTimeout = 100 * time.Millisecond

// CompilePattern compiles expr as Gotenberg compiles its
// CHROMIUM_ALLOW_LIST and CHROMIUM_DENY_LIST (regexp2, .NET's syntax:
// lookaround and backreferences included), each match bounded in time. A
// match that runs out of time counts as deny says: true for a deny
// list's entry, false for an allow list's, so that a URL it cannot decide
// is refused either way.
func CompilePattern(expr string, deny bool) (Pattern, error) {
	re, err := regexp2.Compile(expr, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("%q: not a regular expression: %w", expr, err)
	}
	re.MatchTimeout = patternTimeout
	return &pattern{re: re, onError: deny}, nil
}

type pattern struct {
	re      *regexp2.Regexp
	onError bool
}

func (p *pattern) MatchString(s string) bool {
	ok, err := p.re.MatchString(s)
	if err != nil {
		return p.onError
	}
	return ok
}

func (p *pattern) String() string { return p.re.String() }
