package monitor

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Point is one value of a chart's series, at a time or under a label.
type Point struct {
	Time  time.Time
	Label string // the x axis's text; "" shows Time as HH:MM
	Value float64
	// Missing keeps the point's slot on the x axis without a value (a
	// time without conversions has no p50): nothing is drawn there.
	Missing bool
}

// ChartOptions shape a chart. The zero value draws a 600×200 line chart.
type ChartOptions struct {
	Bar           bool           // bars instead of a line through the points
	Unit          string         // after the values in tooltips ("s"); "" for counts
	One           string         // the unit after exactly 1 ("file" where Unit is "files"); Unit when ""
	Width, Height int            // the width and height attributes; 0 for 600 and 200
	Location      *time.Location // of the HH:MM labels; nil for UTC
}

// The margins of the plot inside the chart, in viewBox units.
const (
	marginLeft, marginRight = 64, 12
	marginTop, marginBottom = 28, 28
	maxXLabels              = 6
)

// Chart draws pts as an SVG chart titled title: axes, the y axis from 0
// to the largest value rounded up (1, 2 or 5 times a power of ten), at
// most six time labels, and one <circle class="point"> (or <rect
// class="bar">) per point with its value in a <title> tooltip. Every text
// is escaped. An empty series draws the axes and says "no data". It is
// O(len(pts)).
func Chart(title string, pts []Point, o ChartOptions) template.HTML {
	w, h := o.Width, o.Height
	if w <= 0 {
		w = 600
	}
	if h <= 0 {
		h = 200
	}
	loc := o.Location
	if loc == nil {
		loc = time.UTC
	}
	c := canvas{w: float64(w), h: float64(h), ymax: niceCeil(maxValue(pts)), n: len(pts)}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		w, h, w, h, esc(title))
	fmt.Fprintf(&b, `<title>%s</title>`, esc(title))
	fmt.Fprintf(&b, `<text class="chart-title" x="%d" y="16">%s</text>`, marginLeft, esc(title))
	unit := o.Unit
	if o.One != "" {
		unit += "|" + o.One
	}
	c.axes(&b, unit)
	if !slices.ContainsFunc(pts, func(p Point) bool { return !p.Missing }) {
		fmt.Fprintf(&b, `<text class="no-data" x="%s" y="%s" text-anchor="middle">no data</text>`,
			num(c.w/2), num(marginTop+c.plotH()/2))
	}
	c.xLabels(&b, pts, loc)
	if o.Bar {
		c.bars(&b, pts, unit, loc)
	} else {
		c.line(&b, pts, unit, loc)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text above went through esc
}

// canvas places values in the viewBox.
type canvas struct {
	w, h, ymax float64
	n          int
}

func (c canvas) plotW() float64 { return c.w - marginLeft - marginRight }
func (c canvas) plotH() float64 { return c.h - marginTop - marginBottom }

// x is the centre of point i's slot.
func (c canvas) x(i int) float64 { return marginLeft + (float64(i)+0.5)*c.plotW()/float64(c.n) }

// y places v, clamped to [0, ymax] (NaN at 0): a point never leaves the plot.
func (c canvas) y(v float64) float64 {
	if !(v > 0) {
		v = 0
	}
	return marginTop + c.plotH()*(1-min(v, c.ymax)/c.ymax)
}

// axes draws both axes and the y axis's ticks at 0, half and the top.
func (c canvas) axes(b *strings.Builder, unit string) {
	bottom := marginTop + c.plotH()
	fmt.Fprintf(b, `<path class="axis" d="M%s %sV%sH%s" fill="none" stroke="currentColor"/>`,
		num(marginLeft), num(marginTop), num(bottom), num(c.w-marginRight))
	for _, v := range []float64{0, c.ymax / 2, c.ymax} {
		fmt.Fprintf(b, `<text class="tick" x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`,
			marginLeft-4, num(c.y(v)), esc(value(v, unit)))
	}
}

// xLabels labels every k-th point so that at most maxXLabels show.
func (c canvas) xLabels(b *strings.Builder, pts []Point, loc *time.Location) {
	every := max(1, (len(pts)+maxXLabels-1)/maxXLabels)
	for i := 0; i < len(pts); i += every {
		fmt.Fprintf(b, `<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`,
			num(c.x(i)), num(c.h-10), esc(label(pts[i], loc)))
	}
}

func (c canvas) line(b *strings.Builder, pts []Point, unit string, loc *time.Location) {
	var d strings.Builder
	gap := true
	for i, p := range pts {
		if p.Missing {
			gap = true
			continue
		}
		cmd := "L"
		if gap {
			cmd = "M"
		}
		gap = false
		fmt.Fprintf(&d, "%s%s %s", cmd, num(c.x(i)), num(c.y(p.Value)))
	}
	if strings.Count(d.String(), "L") > 0 {
		fmt.Fprintf(b, `<path class="line" d="%s" fill="none" stroke="currentColor"/>`, d.String())
	}
	for i, p := range pts {
		if p.Missing {
			continue
		}
		fmt.Fprintf(b, `<circle class="point" cx="%s" cy="%s" r="3"><title>%s</title></circle>`,
			num(c.x(i)), num(c.y(p.Value)), esc(tooltip(p, unit, loc)))
	}
}

func (c canvas) bars(b *strings.Builder, pts []Point, unit string, loc *time.Location) {
	width := 0.7 * c.plotW() / float64(max(c.n, 1))
	for i, p := range pts {
		if p.Missing {
			continue
		}
		top := c.y(p.Value)
		fmt.Fprintf(b, `<rect class="bar" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
			num(c.x(i)-width/2), num(top), num(width), num(marginTop+c.plotH()-top), esc(tooltip(p, unit, loc)))
	}
}

func label(p Point, loc *time.Location) string {
	if p.Label != "" {
		return p.Label
	}
	return p.Time.In(loc).Format("15:04")
}

func tooltip(p Point, unit string, loc *time.Location) string {
	return label(p, loc) + ": " + value(p.Value, unit)
}

// value writes v shortly (at most 3 significant digits) with its unit,
// or the singular after a "|" in unit for exactly 1 ("files|file").
func value(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'g', 3, 64)
	if strings.ContainsAny(s, "e") {
		s = strconv.FormatFloat(v, 'f', 0, 64)
	}
	plural, one, ok := strings.Cut(unit, "|")
	if ok && s == "1" {
		plural = one
	}
	if plural == "" {
		return s
	}
	return s + " " + plural
}

// num writes a coordinate with one decimal at most.
func num(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) }

func esc(s string) string { return html.EscapeString(s) }

func maxValue(pts []Point) float64 {
	m := 0.0
	for _, p := range pts {
		if p.Value > m && !math.IsInf(p.Value, 1) {
			m = p.Value
		}
	}
	return m
}

// niceCeil rounds x up to 1, 2 or 5 times a power of ten; 1 for nothing.
func niceCeil(x float64) float64 {
	if !(x > 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if x <= m*p*(1+1e-12) {
			return m * p
		}
	}
	return 10 * p
}
