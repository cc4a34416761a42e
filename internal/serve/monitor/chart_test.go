package monitor

import (
	"encoding/xml"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var chartT0 = time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)

func series(vs ...float64) []Point {
	pts := make([]Point, len(vs))
	for i, v := range vs {
		pts[i] = Point{Time: chartT0.Add(time.Duration(i) * 5 * time.Minute), Value: v}
	}
	return pts
}

// TestChartGolden compares charts with testdata/*.svg (go test -update
// rewrites them) and checks each is well-formed XML.
func TestChartGolden(t *testing.T) {
	tests := []struct {
		name  string
		title string
		pts   []Point
		o     ChartOptions
	}{
		{"line", "p95 run time, last hour", series(1.2, 3.4, 0, 2.5, 7.9, 4, 4.1, 0.3, 1, 2, 3, 9.5), ChartOptions{Unit: "s"}},
		{"bar", "conversions per hour", series(3, 14, 0, 27), ChartOptions{Bar: true, Width: 300, Height: 150}},
		{"labels", "failures by reason", []Point{{Label: "timeout", Value: 2}, {Label: "load failed", Value: 5}}, ChartOptions{Bar: true}},
		{"empty", "conversions per hour", nil, ChartOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(Chart(tt.title, tt.pts, tt.o))
			wellFormed(t, got)
			path := filepath.Join("testdata", tt.name+".svg")
			if *update {
				if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got+"\n" != string(want) {
				t.Errorf("Chart(%q) differs from %s (go test -update rewrites it)\n got %s", tt.title, path, got)
			}
		})
	}
}

func wellFormed(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
	}
}

// TestChartParts counts the marks and checks what every chart carries.
func TestChartParts(t *testing.T) {
	tests := []struct {
		name   string
		pts    []Point
		o      ChartOptions
		mark   string
		n      int
		noData bool
	}{
		{"line of 12", series(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), ChartOptions{}, `<circle class="point"`, 12, false},
		{"bars of 24", series(make([]float64, 24)...), ChartOptions{Bar: true}, `<rect class="bar"`, 24, false},
		{"one point", series(4), ChartOptions{}, `<circle class="point"`, 1, false},
		{"empty line", nil, ChartOptions{}, `<circle class="point"`, 0, true},
		{"empty bars", []Point{}, ChartOptions{Bar: true}, `<rect class="bar"`, 0, true},
		{"gaps", []Point{{Value: 1}, {Missing: true}, {Value: 2}, {Value: 3}}, ChartOptions{}, `<circle class="point"`, 3, false},
		{"all missing", []Point{{Missing: true}, {Missing: true}}, ChartOptions{}, `<circle class="point"`, 0, true},
		{"bars with a gap", []Point{{Value: 1}, {Missing: true}}, ChartOptions{Bar: true}, `<rect class="bar"`, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(Chart("t", tt.pts, tt.o))
			wellFormed(t, got)
			if n := strings.Count(got, tt.mark); n != tt.n {
				t.Errorf("%d of %s, want %d", n, tt.mark, tt.n)
			}
			if n := strings.Count(got, "<title>"); n != tt.n+1 {
				t.Errorf("%d titles, want one per point and the chart's: %d", n, tt.n+1)
			}
			if strings.Contains(got, "no data") != tt.noData {
				t.Errorf("says no data: %v, want %v", !tt.noData, tt.noData)
			}
			for _, want := range []string{`role="img"`, `aria-label="t"`, `width="600"`, `height="200"`, `viewBox="0 0 600 200"`} {
				if !strings.Contains(got, want) {
					t.Errorf("no %s in %s", want, got)
				}
			}
		})
	}
}

// TestChartEscapes: titles and labels are text, never markup.
func TestChartEscapes(t *testing.T) {
	got := string(Chart(`<script>alert("x")</script>`, []Point{{Label: `a"><script>`, Value: 1}}, ChartOptions{Unit: "<b>"}))
	wellFormed(t, got)
	if strings.Contains(got, "<script") || strings.Contains(got, "<b>") {
		t.Errorf("markup from the text got through: %s", got)
	}
	if !strings.Contains(got, `aria-label="&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"`) {
		t.Errorf("title not escaped in aria-label: %s", got)
	}
}

// TestChartScale: the y axis's top is the largest value rounded up, and
// no point leaves the plot.
func TestChartScale(t *testing.T) {
	tests := []struct {
		max, want float64
	}{{0, 1}, {0.3, 0.5}, {1, 1}, {1.01, 2}, {7.9, 10}, {27, 50}, {100, 100}, {101, 200}, {-3, 1}}
	for _, tt := range tests {
		if got := niceCeil(tt.max); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("niceCeil(%v) = %v, want %v", tt.max, got, tt.want)
		}
	}
	c := canvas{w: 600, h: 200, ymax: 10, n: 3}
	for _, v := range []float64{-1, math.NaN(), math.Inf(1), 10, 0} {
		if y := c.y(v); y < marginTop || y > marginTop+c.plotH() {
			t.Errorf("y(%v) = %v, outside [%d, %v]", v, y, marginTop, marginTop+c.plotH())
		}
	}
}

// TestChartUnits: a count of 1 takes the singular of the unit, others the
// plural, on the axis and in the tooltips.
func TestChartUnits(t *testing.T) {
	got := string(Chart("files", series(1, 2), ChartOptions{Bar: true, Unit: "files", One: "file"}))
	for _, want := range []string{">1 file<", ">2 files<", ": 1 file<", ": 2 files<"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in %s", want, got)
		}
	}
	if strings.Contains(got, "1 files") {
		t.Errorf("1 files in %s", got)
	}
}
