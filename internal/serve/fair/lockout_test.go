package fair

import (
	"math"
	"testing"
	"time"

	"calq/internal/testclock"
	"calq/sched"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// TestOneSlowFileLocksNobodyOut is issue 33's case: a fresh gate whose
// first measured document was one slow file (cut at 30 s: a zip bomb),
// then another user's one-file synchronous request with a limit of 30 s.
// It is admitted at once, whether the slow file was cut or really took
// that long, and whether the servers are idle or busy.
func TestOneSlowFileLocksNobodyOut(t *testing.T) {
	tests := []struct {
		name    string
		cut     bool
		busy    int           // servers another user holds when the request comes
		predict time.Duration // PredictWait of the request
	}{
		{"cut, idle", true, 0, 2500 * time.Millisecond},                      // (1 + 4·1)/2
		{"cut, both servers busy", true, 2, 3750 * time.Millisecond},         // 1/(2μ) + 1/μ
		{"really slow, idle", false, 0, 15750 * time.Millisecond},            // (1 + 30.5)/2
		{"really slow, one server busy", false, 1, 15750 * time.Millisecond}, // a server is free
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := testclock.New(t0)
			g := New(Options{Servers: 2, Now: clk.Now})
			s, err := g.Acquire(t.Context(), "bomb", sched.P2)
			if err != nil {
				t.Fatal(err)
			}
			clk.Set(clk.Now().Add(30*time.Second + 500*time.Millisecond))
			if tt.cut {
				s.ReleaseCut()
			} else {
				s.Release()
			}
			for range tt.busy {
				if _, err := g.Acquire(t.Context(), "x", sched.P2); err != nil {
					t.Fatal(err)
				}
			}
			if got := g.RetryAfter("other", sched.P2, 1, 30*time.Second); got != 0 {
				t.Errorf("RetryAfter(other, P2, 1 file, 30s) = %v, want 0 (admitted now)", got)
			}
			if got := g.PredictWait("other", sched.P2, 1); (got - tt.predict).Abs() > time.Millisecond {
				t.Errorf("PredictWait(other, P2, 1 file) = %v, want %v", got, tt.predict)
			}
		})
	}
}

// TestRecoversFromSyncTraffic: after a file that really took two
// minutes, synchronous requests are admitted (an idle gate lets even a
// request predicted over its limit try), and their own service times
// bring the estimate back without any asynchronous job.
func TestRecoversFromSyncTraffic(t *testing.T) {
	clk := testclock.New(t0)
	g := New(Options{Servers: 1, Now: clk.Now, Window: 8})
	serve := func(d time.Duration) {
		t.Helper()
		s, err := g.Acquire(t.Context(), "u", sched.P2)
		if err != nil {
			t.Fatal(err)
		}
		clk.Set(clk.Now().Add(d))
		s.Release()
	}
	serve(2 * time.Minute)
	for i := range 8 {
		if got := g.RetryAfter("v", sched.P2, 1, 30*time.Second); got != 0 {
			t.Fatalf("request %d after the slow file: RetryAfter = %v, want 0", i+1, got)
		}
		serve(time.Second)
	}
	if got, want := g.PredictWait("v", sched.P2, 1), time.Second; (got - want).Abs() > time.Millisecond {
		t.Errorf("PredictWait after a window of 1 s services = %v, want %v", got, want)
	}
}

// TestEstimate checks the service-time estimate against values worked
// by hand: the prior counts as one fresh sample, a sample's weight halves
// every half-life, and a cut sample counts as at most 4 typical times.
func TestEstimate(t *testing.T) {
	const hl = time.Minute
	type add struct {
		d   time.Duration
		ago time.Duration // how long before now it ended
		cut bool
	}
	tests := []struct {
		name string
		adds []add
		want float64 // seconds
	}{
		{"nothing measured: the prior", nil, 1},
		{"one fresh sample", []add{{3 * time.Second, 0, false}}, 2},
		{"one sample a half-life old", []add{{7 * time.Second, hl, false}}, (1 + 0.5*7) / 1.5},
		{"one sample ten half-lives old", []add{{61 * time.Second, 10 * hl, false}}, (1 + 61.0/1024) / (1 + 1.0/1024)},
		{"a cut sample on a fresh gate: 4 priors", []add{{30 * time.Second, 0, true}}, (1 + 4) / 2.0},
		{"a cut sample shorter than its cap", []add{{3 * time.Second, 0, true}}, 2},
		{"a cut sample after 2 s ones: 4 medians", []add{{2 * time.Second, 0, false}, {2 * time.Second, 0, false},
			{2 * time.Second, 0, false}, {100 * time.Second, 0, true}}, (1 + 6 + 8) / 5.0},
		{"the window keeps the last 4", []add{{100 * time.Second, 0, false}, {time.Second, 0, false},
			{time.Second, 0, false}, {time.Second, 0, false}, {6 * time.Second, 0, false}}, (1 + 3 + 6) / 5.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEstimate(time.Second, hl, 4)
			for _, a := range tt.adds {
				e.add(a.d, t0.Add(-a.ago), a.cut)
			}
			if got := e.mean(t0); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("mean = %.9f s, want %.9f s", got, tt.want)
			}
		})
	}
}
