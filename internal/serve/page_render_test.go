package serve

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"calq/analyze"
	"calq/convert/lo"
	"calq/internal/serve/monitor"
	"calq/sched"
	"calq/sched/history"
	"calq/sms/store"
)

// renderText renders page name with p and returns its text without
// tags, spaces collapsed: what a person reads, near enough for a test
// without a browser.
func renderText(t *testing.T, name string, p page) string {
	t.Helper()
	tp, err := pageTemplates.get(name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tp.ExecuteTemplate(&buf, "layout.html", p); err != nil {
		t.Fatalf("render %s: %v", name, err)
	}
	return textOf(buf.String())
}

// textOf is a page's text without tags, scripts and charts, spaces
// collapsed.
func textOf(page string) string {
	body := regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<svg.*?</svg>|<option.*?</option>`).ReplaceAllString(page, " ")
	text := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(body, " "))
	return strings.Join(strings.Fields(text), " ")
}

// goSyntax is what fmt prints for a value it cannot format as asked, or
// a pointer: never text for people.
var goSyntax = regexp.MustCompile(`%!|0xc0|<nil>|\bclass\(\d+\)`)

func float(v float64) *float64 { return &v }

// fullSnapshot has every figure of the monitoring page set, the nullable
// ones both set and unset.
func fullSnapshot() monitor.Snapshot {
	at := time.Date(2026, 11, 1, 12, 2, 30, 0, time.UTC)
	run := history.Summary{N: 3, Mean: 2, P50: 1.5, P90: 2.5, P95: 2.75, P99: 3}
	win := monitor.Window{Since: at.Add(-time.Hour), Until: at, Step: 5 * time.Minute,
		Buckets: []monitor.Bucket{{Start: at.Add(-5 * time.Minute), Jobs: 4, Done: 3, Failed: 1, Run: run}},
		Total:   monitor.Bucket{Start: at.Add(-time.Hour), Jobs: 4, Done: 3, Failed: 1, Run: run}}
	return monitor.Snapshot{
		At:        at,
		Instances: []lo.InstanceStats{{Name: "lo-1", State: lo.StateBusy, Conversions: 9, Failures: 2, Restarts: 1, RSS: 300 << 20}},
		Queue: &monitor.Queue{Servers: 2, Busy: 2, Waiting: 10, ByClass: [sched.NumClasses]int{1, 2, 3, 4},
			ByUser: []monitor.UserCount{{User: "bob", Waiting: 6}, {User: "ann", Waiting: 4}}},
		Hour: win, Day: win,
		Failures: []history.ReasonCount{{Reason: "the document could not be opened", Count: 1}},
		Analysis: []analyze.HistoryGroup{
			{Kind: "convert-office", Backend: "lo-1", Jobs: 40, Lambda: float(0.0123), Mu: float(0.25), WqObserved: 1.25,
				Rho: float(0.0246), WqPredicted: float(0.5)},
			{Kind: "convert-image", Backend: "pdfcpu", Jobs: 1, WqObserved: 0},
		},
		SMS: &store.Counts{Outbox: map[string]int{"queued": 2}, Inbox: 5, Reports: 1},
	}
}

// TestMonitorPageText: every number of the monitoring page reads as a
// number (λ and μ are pointers: no Go syntax), and the queue's classes
// read P0 to P3, each with its own count.
func TestMonitorPageText(t *testing.T) {
	v := newMonitorView(fullSnapshot(), "")
	got := renderText(t, "monitor", page{Title: "Monitoring", Data: v})
	if m := goSyntax.FindString(got); m != "" {
		t.Errorf("the monitoring page prints %q:\n%s", m, got)
	}
	for _, want := range []string{
		"Class Waiting P0 realtime 1 P1 interactive 2 P2 normal 3 P3 background 4",
		"User Waiting bob 6 ann 4",
		"convert-office lo-1 40 0.0123 0.250 0.025 1.25 0.50",
		"convert-image pdfcpu 1 – – – 0.00 –",
		"p50 1.50 s · p95 2.75 s",
		"lo-1 busy 9 2 1 " + humanBytes(300<<20),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the monitoring page does not read %q:\n%s", want, got)
		}
	}
}
