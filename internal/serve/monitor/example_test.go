package monitor_test

import (
	"fmt"
	"strings"
	"time"

	"calq/internal/serve/monitor"
)

// A snapshot's hour as a chart of p95 run times, one point per bucket.
func ExampleChart() {
	w := monitor.Window{Step: 5 * time.Minute}
	t0 := time.Date(2026, 11, 1, 11, 0, 0, 0, time.UTC)
	for i, p95 := range []float64{1.5, 2, 4.5} {
		b := monitor.Bucket{Start: t0.Add(time.Duration(i) * w.Step)}
		b.Run.P95 = p95
		w.Buckets = append(w.Buckets, b)
	}
	var pts []monitor.Point
	for _, b := range w.Buckets {
		pts = append(pts, monitor.Point{Time: b.Start, Value: b.Run.P95})
	}
	svg := string(monitor.Chart("p95 run time", pts, monitor.ChartOptions{Unit: "s"}))
	fmt.Println(strings.Count(svg, `class="point"`), strings.Contains(svg, "<title>11:10: 4.5 s</title>"))
	// Output: 3 true
}
