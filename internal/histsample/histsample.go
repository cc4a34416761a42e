// Package histsample turns the records of a history store into the job
// samples of analyze.History: the one conversion that `calq analyze
// history` and calq serve's monitoring page share, so that both report
// the same λ and μ. It is pure and safe for concurrent use.
package histsample

import (
	"time"

	"calq/analyze"
	"calq/sched"
	"calq/sched/history"
)

// FromRecords returns History's input for recs: the jobs that started,
// grouped by where they last ran. A job waiting to retry has no finish
// time: it counts as an arrival and a wait, not as finished. It is O(n).
func FromRecords(recs []history.Record) []analyze.JobSample {
	samples := make([]analyze.JobSample, 0, len(recs))
	for _, r := range recs {
		if r.Started.IsZero() {
			continue
		}
		s := analyze.JobSample{Kind: r.Kind, Backend: r.RanOn, Class: r.Class.Index(), Enqueued: r.Enqueued, Started: r.Started,
			Finished: r.Finished, OK: r.State == sched.StateDone}
		if r.RunS != nil && !r.Finished.IsZero() {
			s.Service = time.Duration(*r.RunS * float64(time.Second))
		}
		samples = append(samples, s)
	}
	return samples
}
