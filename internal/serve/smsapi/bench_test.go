package smsapi

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkReportToPush measures the time from a status report filed in
// the inbox (as the daemon's Receive files it, then calls Wake) to its
// sms.report event at the report URL, and reports its median and 90th
// percentile: the goal is under 50 ms at the median. Run with
// -bench ReportToPush -benchtime 200x.
func BenchmarkReportToPush(b *testing.B) {
	rc := newReceiver(b)
	e := newEnv(b, func(o *Options) { o.PollEvery = time.Hour; o.Rate, o.Quota = 0, 0 })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.svc.Run(ctx) }()
	defer func() { cancel(); <-done }()
	took := make([]time.Duration, 0, b.N)
	for i := range b.N {
		to := fmt.Sprintf("+4917%08d", i)
		id := e.send("alice", `{"to":"`+to+`","text":"hi","reportUrl":"`+rc.URL+`"}`)[0].ID
		e.clock.Set(e.clock.Now().Add(time.Millisecond))
		start := time.Now()
		e.acceptAndReport(id, to, i%256, 0)
		e.svc.Wake()
		for ev := range rc.got {
			if ev.Type == "sms.report" && ev.ID == id {
				break
			}
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "ms-p90")
}
