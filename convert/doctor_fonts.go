package convert

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"calq/convert/fonts"
	"calq/internal/childenv"
)

// metricFonts are the fonts that lay Office documents out as Office
// does (same widths, so the same line and page breaks), with the Debian
// package that has them.
var metricFonts = []struct{ family, pkg, why string }{
	{"Carlito", "fonts-crosextra-carlito", "Calibri's metrics (Word and Excel's default since 2007)"},
	{"Caladea", "fonts-crosextra-caladea", "Cambria's metrics"},
	{"Liberation Sans", "fonts-liberation2", "Arial's and Times New Roman's metrics"},
	{"DejaVu Sans", "fonts-dejavu-core", "wide Unicode coverage"},
}

// fontEnv is the environment of fontconfig's programs: LibreOffice's
// allow-list, so that they see the fonts LibreOffice sees.
func fontEnv() []string { return childenv.Allowed(os.Environ()) }

func fontChecks(ctx context.Context) []Check {
	cmd := exec.CommandContext(ctx, "fc-list", ":", "family")
	cmd.Env = fontEnv()
	out, err := cmd.Output()
	if err != nil {
		return []Check{{Name: "fonts", Detail: "fc-list did not run: " + err.Error(), Fix: "apt-get install fontconfig"}}
	}
	have := strings.ToLower(string(out))
	var checks []Check
	for _, f := range metricFonts {
		c := Check{Name: "font " + f.family, OK: strings.Contains(have, strings.ToLower(f.family)), Detail: f.why}
		if !c.OK {
			c.Fix = "apt-get install " + f.pkg
		}
		checks = append(checks, c)
	}
	return checks
}

// scriptChecks asks fontconfig, for each writing system of
// fonts.Scripts, whether a font covers it: LibreOffice draws a script
// no font covers as empty boxes, with no error. A missing script is
// advice, as a missing font is: documents still convert.
func scriptChecks(ctx context.Context) []Check {
	cov, err := fonts.Cover(ctx, fontEnv(), fonts.Scripts)
	if err != nil {
		return []Check{{Name: "scripts", Detail: err.Error(), Fix: "apt-get install fontconfig"}}
	}
	checks := make([]Check, 0, len(cov))
	for _, c := range cov {
		ck := Check{Name: "script " + c.Name, OK: c.Covered()}
		switch n := len(c.Fonts); {
		case n == 0:
			ck.Detail = fmt.Sprintf("no font has all of %s: LibreOffice draws them as empty boxes", c.Sample)
			ck.Fix = "apt-get install " + c.Package
		case n == 1:
			ck.Detail = c.Fonts[0]
		default:
			ck.Detail = fmt.Sprintf("%s and %d more", c.Fonts[0], n-1)
		}
		checks = append(checks, ck)
	}
	return checks
}
