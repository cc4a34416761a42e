package convertcmd

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/convert"
	"calq/convert/chromium"
	"calq/internal/cli/base"
	"calq/internal/config"
)

// htmlFlags are the flags of web pages: HTML and Markdown files and
// --url, printed by Chromium.
func htmlFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "url", Usage: "also archive the web page at `URL` (http or https) as a PDF named from its host and path; repeatable"},
		&cli.StringFlag{Name: "html-engine", Usage: "convert .html, .htm, .xhtml and .md files with `ENGINE`: chromium, libreoffice or auto (chromium when installed, else libreoffice)", Value: convert.EngineAuto},
		&cli.StringFlag{Name: "chromium", EnvVars: []string{"CALQ_CHROMIUM"}, Usage: "the chromium program", DefaultText: "chromium on PATH"},
		&cli.StringFlag{Name: "paper", Usage: "Chromium's paper `SIZE`: letter, legal, tabloid, ledger, a0 to a6, or WIDTHxHEIGHT (in, cm, mm, pt, px; inches by default)", DefaultText: "letter"},
		&cli.StringFlag{Name: "margin", Usage: "Chromium's margins: one `LENGTH`, or top,right,bottom,left", DefaultText: "0.39in"},
		&cli.BoolFlag{Name: "landscape", Usage: "print web pages in landscape"},
		&cli.Float64Flag{Name: "scale", Usage: "scale web pages by `FACTOR` (0.1 to 2)", DefaultText: "1"},
		&cli.BoolFlag{Name: "print-background", Usage: "print web pages' background colours and images"},
		&cli.StringFlag{Name: "header-html", Usage: "print the HTML page in `FILE` in each page's top margin (elements of class pageNumber, totalPages, title, url, date get those values)"},
		&cli.StringFlag{Name: "footer-html", Usage: "the same in each page's bottom margin"},
		&cli.DurationFlag{Name: "wait-delay", Usage: "wait this long after a web page is loaded before printing it"},
		&cli.StringFlag{Name: "wait-for-selector", Usage: "wait until an element of the web page matches the CSS `SELECTOR`"},
		&cli.StringFlag{Name: "wait-for-expression", Usage: "wait until the JavaScript `EXPRESSION` is true in the web page"},
		&cli.StringFlag{Name: "media", Usage: "emulate the CSS media `TYPE` print or screen", DefaultText: "print"},
		&cli.StringFlag{Name: "user-agent", Usage: "load web pages with this User-Agent `STRING`"},
		&cli.BoolFlag{Name: "javascript", Value: true, Usage: "run web pages' JavaScript (--javascript=false turns it off)"},
		&cli.StringSliceFlag{Name: "chromium-allow", Usage: "let web pages reach these private or loopback `CIDR`s or host[:port]s (repeatable); " +
			"by default a page loads public addresses and, for a file, the files of its own directory and below, nothing else"},
	}
}

// readHTML reads the web pages' flags, over the profile, recording in
// errs what is wrong.
func readHTML(c *cli.Context, prof config.Profile, errs *base.FlagErrors) convert.HTMLOptions {
	h := convert.HTMLOptions{Engine: cmp.Or(flagOr(c, "html-engine", prof.HTMLEngine), c.String("html-engine"))}
	h.Chromium.Binary = c.String("chromium")
	h.Chromium.DisableJavaScript = !c.Bool("javascript") || (!c.IsSet("javascript") && prof.JavaScript != nil && !*prof.JavaScript)
	h.Chromium.Policy.AllowNetworks = c.StringSlice("chromium-allow")
	if !c.IsSet("chromium-allow") {
		h.Chromium.Policy.AllowNetworks = prof.ChromiumAllow
	}
	h.Page = readPage(c, prof, errs)
	h.Load = chromium.Load{WaitForSelector: flagOr(c, "wait-for-selector", prof.WaitForSelector),
		WaitForExpression: flagOr(c, "wait-for-expression", prof.WaitForExpression),
		UserAgent:         flagOr(c, "user-agent", prof.UserAgent)}
	switch h.Load.EmulatedMediaType = flagOr(c, "media", prof.Media); h.Load.EmulatedMediaType {
	case "", "print", "screen":
	default:
		errs.Failf("media", "%q: want print or screen", h.Load.EmulatedMediaType)
	}
	h.Load.WaitDelay = c.Duration("wait-delay")
	if !c.IsSet("wait-delay") && prof.WaitDelay != "" {
		d, err := time.ParseDuration(prof.WaitDelay)
		if err != nil {
			errs.Errorf("wait_delay %q in the profile: want a duration such as 500ms", prof.WaitDelay)
		}
		h.Load.WaitDelay = d
	}
	return h
}

// readPage reads Chromium's page options, over the profile: nil when
// none is given.
func readPage(c *cli.Context, prof config.Profile, errs *base.FlagErrors) *chromium.PDF {
	p := chromium.DefaultPDF()
	set := false
	if s := flagOr(c, "paper", prof.Paper); s != "" {
		w, h, err := parsePaper(s)
		if err != nil {
			errs.Failf("paper", "%v", err)
			w, h = p.PaperWidth, p.PaperHeight
		}
		p.PaperWidth, p.PaperHeight, set = w, h, true
	}
	if s := flagOr(c, "margin", prof.Margin); s != "" {
		m, err := parseMargins(s)
		if err != nil {
			errs.Failf("margin", "%v", err)
			m = [4]float64{p.MarginTop, p.MarginRight, p.MarginBottom, p.MarginLeft}
		}
		p.MarginTop, p.MarginRight, p.MarginBottom, p.MarginLeft, set = m[0], m[1], m[2], m[3], true
	}
	if c.IsSet("scale") || prof.Scale != 0 {
		p.Scale, set = prof.Scale, true
		if c.IsSet("scale") {
			p.Scale = c.Float64("scale")
		}
	}
	p.Landscape = c.Bool("landscape") || (!c.IsSet("landscape") && prof.Landscape)
	p.PrintBackground = c.Bool("print-background") || (!c.IsSet("print-background") && prof.PrintBackground)
	p.HeaderHTML = readHTMLFile(c, "header-html", prof.HeaderHTML, errs)
	p.FooterHTML = readHTMLFile(c, "footer-html", prof.FooterHTML, errs)
	if !set && p == chromium.DefaultPDF() {
		return nil
	}
	return &p
}

// maxHeaderBytes bounds a header or footer file.
const maxHeaderBytes = 1 << 20

// readHTMLFile reads the HTML file that flag (or the profile) names.
func readHTMLFile(c *cli.Context, flag, fromProfile string, errs *base.FlagErrors) string {
	name := flagOr(c, flag, fromProfile)
	if name == "" {
		return ""
	}
	fi, err := os.Stat(name)
	switch {
	case err != nil:
		errs.Failf(flag, "%v", err)
		return ""
	case !fi.Mode().IsRegular() || fi.Size() > maxHeaderBytes:
		errs.Failf(flag, "%s: want a regular file of at most 1 MiB", name)
		return ""
	}
	b, err := os.ReadFile(name)
	if err != nil {
		errs.Failf(flag, "%v", err)
	}
	return string(b)
}

// papers are the paper sizes by name, in inches.
var papers = map[string][2]float64{
	"letter": {8.5, 11}, "legal": {8.5, 14}, "tabloid": {11, 17}, "ledger": {17, 11},
	"a0": {33.1, 46.8}, "a1": {23.4, 33.1}, "a2": {16.54, 23.4}, "a3": {11.7, 16.54},
	"a4": {8.27, 11.7}, "a5": {5.83, 8.27}, "a6": {4.13, 5.83},
}

// parsePaper reads a paper size: a name of papers, or WIDTHxHEIGHT.
func parsePaper(s string) (w, h float64, err error) {
	if p, ok := papers[strings.ToLower(s)]; ok {
		return p[0], p[1], nil
	}
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		return 0, 0, fmt.Errorf("%q: want letter, legal, tabloid, ledger, a0 to a6, or WIDTHxHEIGHT such as 210mmx297mm", s)
	}
	if w, err = parseLength(ws); err == nil {
		h, err = parseLength(hs)
	}
	if err == nil && (w <= 0 || h <= 0) {
		err = fmt.Errorf("%q: want a positive width and height", s)
	}
	return w, h, err
}

// parseMargins reads one length, or four: top, right, bottom, left.
func parseMargins(s string) ([4]float64, error) {
	var m [4]float64
	parts := strings.Split(s, ",")
	if len(parts) != 1 && len(parts) != 4 {
		return m, fmt.Errorf("%q: want one length, or four: top,right,bottom,left", s)
	}
	for i := range m {
		v, err := parseLength(parts[min(i, len(parts)-1)])
		if err != nil {
			return m, err
		}
		if v < 0 {
			return m, fmt.Errorf("%q: a margin must not be negative", s)
		}
		m[i] = v
	}
	return m, nil
}

// units are the lengths' units, by how many make an inch.
var units = []struct {
	suffix  string
	perInch float64
}{{"mm", 25.4}, {"cm", 2.54}, {"in", 1}, {"pt", 72}, {"px", 96}}

// parseLength reads a length in inches, or with a unit of units.
func parseLength(s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	scale := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, scale = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.perInch
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v != v || v > 1000 || v < -1000 {
		return 0, fmt.Errorf("%q: not a length (a number, with in, cm, mm, pt or px)", s)
	}
	return v / scale, nil
}
