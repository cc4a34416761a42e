package analyze

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// job is a sample of class k enqueued at enq, waiting wait and running run
// seconds.
func job(k int, enq, wait, run float64) JobSample {
	return JobSample{Kind: "shell", Backend: "local", Class: k, Enqueued: at(enq), Started: at(enq + wait),
		Finished: at(enq + wait + run), Service: secs(run), OK: true}
}

// Two classes by hand on one worker: P0 every 10 s running 2 s, P3 every
// 20 s running 4 s; one P3 never started and does not count.
func TestPriorityHistoryByHand(t *testing.T) {
	samples := []JobSample{
		job(0, 0, 0, 2), job(0, 10, 0.5, 2), job(0, 20, 0, 2),
		job(3, 3, 0, 4), job(3, 23, 1.5, 4),
		{Class: 3, Enqueued: at(30)},
	}
	r, err := PriorityHistory(context.Background(), samples, PriorityHistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Servers != 1 || r.MaxConcurrency != 1 || len(r.Classes) != 2 {
		t.Fatalf("servers %d, most at once %d, %d classes: want 1, 1, 2", r.Servers, r.MaxConcurrency, len(r.Classes))
	}
	// λ0 = 2/20, μ0 = 1/2, λ3 = 1/20, μ3 = 1/4: Priority's waits.
	want := map[bool]PriorityResult{}
	for _, pre := range []bool{false, true} {
		want[pre] = priority(t, PriorityOptions{Lambdas: []float64{0.1, 0.05}, Mus: []float64{0.5, 0.25}, Servers: 1, Preemptive: pre})
	}
	for i, wantObserved := range []float64{0.5 / 3, 0.75} {
		pc := r.Classes[i]
		if pc.WqObserved != wantObserved {
			t.Errorf("P%d: observed Wq = %g, want %g", pc.Class, pc.WqObserved, wantObserved)
		}
		if got, w := deref(pc.WqNonPreemptive), want[false].Classes[i].Wq; !near(got, w) {
			t.Errorf("P%d: non-preemptive Wq = %g, want %g", pc.Class, got, w)
		}
		if got, w := deref(pc.WqPreemptive), want[true].Classes[i].Wq; !near(got, w) {
			t.Errorf("P%d: preemptive Wq = %g, want %g", pc.Class, got, w)
		}
	}
	if got := deref(r.Rho); !near(got, 0.4) {
		t.Errorf("ρ = %g, want 0.2 + 0.2", got)
	}
	// Two workers: one μ over all five jobs, 5/14.
	r, err = PriorityHistory(context.Background(), samples, PriorityHistoryOptions{Servers: 2})
	if err != nil {
		t.Fatal(err)
	}
	w := priority(t, PriorityOptions{Lambdas: []float64{0.1, 0.05}, Mus: []float64{5.0 / 14}, Servers: 2})
	if got := deref(r.Classes[1].WqNonPreemptive); !near(got, w.Classes[1].Wq) || !near(deref(r.PooledMu), 5.0/14) {
		t.Errorf("two workers: P3 Wq = %g with μ %g, want %g with 5/14", got, deref(r.PooledMu), w.Classes[1].Wq)
	}
}

// A class with one job has no λ: it is left out of the model, with a
// warning, and the others are still predicted.
func TestPriorityHistoryLeftOut(t *testing.T) {
	samples := []JobSample{job(0, 0, 0, 1), job(0, 10, 0, 1), job(2, 5, 1, 1)}
	r, err := PriorityHistory(context.Background(), samples, PriorityHistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Classes[1].Lambda != nil || r.Classes[1].WqNonPreemptive != nil || r.Classes[0].WqNonPreemptive == nil {
		t.Errorf("classes %+v: want P2 without λ or prediction, P0 predicted", r.Classes)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "P2 is left out of the model") {
		t.Errorf("warnings %q, want P2 left out", r.Warnings)
	}
}

func TestPriorityHistoryBadInput(t *testing.T) {
	tests := []struct {
		name    string
		samples []JobSample
		o       PriorityHistoryOptions
		want    string
	}{
		{"servers", nil, PriorityHistoryOptions{Servers: -1}, "servers = -1"},
		{"class", []JobSample{job(MaxClasses, 0, 0, 1)}, PriorityHistoryOptions{}, "job sample 0: invalid input: class 100"},
		{"started before enqueued", []JobSample{job(0, 0, -1, 1)}, PriorityHistoryOptions{}, "started 1s before"},
	}
	for _, tc := range tests {
		_, err := PriorityHistory(context.Background(), tc.samples, tc.o)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrInput with %q", tc.name, err, tc.want)
		}
	}
}
