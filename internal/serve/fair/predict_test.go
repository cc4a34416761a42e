package fair

import (
	"context"
	"math"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"calq/analyze"
	"calq/internal/testclock"
	"calq/sched"
)

// TestPredictWait checks PredictWait against values worked by hand from
// max(0, m-k)/(cμ) + 1/μ, with μ = 1/s (DefaultService) unless measured.
// Where other users wait, the grant order the prediction assumed is then
// checked against the gate's own.
func TestPredictWait(t *testing.T) {
	waitFor := func(user string, n int, class sched.Class) func(*harness) {
		return func(h *harness) {
			for i := range n {
				h.acquire(context.Background(), i, user, class)
			}
		}
	}
	tests := []struct {
		name    string
		servers int
		weights map[string]float64
		held    int // slots "x" holds
		setup   func(*harness)
		user    string
		class   sched.Class
		files   int
		want    time.Duration
		place   int // with place > 0: the request's single file is granted place-th
	}{
		{name: "idle, one file", servers: 2, user: "u", files: 1, want: time.Second},
		{name: "idle, five files on two servers", servers: 2, user: "u", files: 5,
			want: 2500 * time.Millisecond}, // 3/(2·1) + 1
		{name: "no file given", servers: 2, user: "u", want: 0},
		{name: "all busy, nothing waits", servers: 2, held: 2, user: "u", files: 1,
			want: 1500 * time.Millisecond}, // 1/2 + 1
		{name: "a newcomer behind one of a's ten", servers: 2, held: 2, setup: waitFor("a", 10, sched.P2),
			user: "b", files: 1, want: 2 * time.Second, place: 2}, // a's first ties b's tag and started first: 2/2 + 1
		{name: "a behind its own ten", servers: 2, held: 2, setup: waitFor("a", 10, sched.P2),
			user: "a", class: sched.P2, files: 1, want: 6500 * time.Millisecond, place: 11}, // 11/2 + 1
		{name: "a's P0 goes before its own P2s", servers: 2, held: 2, setup: waitFor("a", 10, sched.P2),
			user: "a", class: sched.P0, files: 1, want: 1500 * time.Millisecond, place: 1},
		{name: "a's P3 goes behind its own P2s", servers: 2, held: 2, setup: waitFor("a", 10, sched.P2),
			user: "a", class: sched.P3, files: 1, want: 6500 * time.Millisecond, place: 11},
		{name: "b of weight 2, four files, against a's ten", servers: 2, held: 2, weights: map[string]float64{"b": 2},
			setup: waitFor("a", 10, sched.P2), user: "b", files: 4,
			want: 4 * time.Second}, // T = 1 + 3/2, a gets ⌈1.5⌉ = 2 in: 6/2 + 1
		{name: "a's reservation counts as waiting", servers: 2,
			setup: func(h *harness) { h.g.Reserve("a", 4) }, user: "a", files: 1,
			want: 2500 * time.Millisecond}, // 5 to start on 2 free: 3/2 + 1
		{name: "b's reservation counts by fairness", servers: 2, held: 2,
			setup: func(h *harness) { h.g.Reserve("b", 4) }, user: "a", files: 3,
			want: 4 * time.Second}, // T = 1 + 2; b's tags 1, 2, 3 come first (b wins the tie): 6/2 + 1
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := Options{Servers: tt.servers, Weight: func(u string) float64 { return tt.weights[u] }}
				h := newHarness(t, o)
				h.hold("x", tt.held)
				if tt.setup != nil {
					tt.setup(h)
				}
				if got := h.g.PredictWait(tt.user, tt.class, tt.files); got != tt.want {
					t.Errorf("PredictWait(%s, %v, %d) = %v, want %v", tt.user, tt.class, tt.files, got, tt.want)
				}
				if tt.place > 0 {
					h.acquire(t.Context(), 1000, tt.user, tt.class)
					if got := slices.Index(h.drain(), 1000) + 1; got != tt.place {
						t.Errorf("the file was granted %d-th, want %d-th as predicted", got, tt.place)
					}
				}
				cleanup(h)
			})
		})
	}
}

// cleanup lets every waiter of h finish.
func cleanup(h *harness) {
	if h.g.Stats().Waiting > 0 {
		h.drain()
	}
	for _, gr := range h.held {
		gr.slot.Release()
	}
	h.held = nil
}

// TestMeasuredRate: μ is one over the estimate, the prior and the last
// Window service times, and PredictWait uses it once measured.
func TestMeasuredRate(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := testclock.New(t0)
	g := New(Options{Servers: 2, Window: 2, Now: clk.Now, HalfLife: 1000 * time.Hour})
	if got := g.Stats().ServiceRate; got != 0 {
		t.Errorf("rate before any service: %v, want 0", got)
	}
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 7 * time.Second} {
		s, err := g.Acquire(t.Context(), "x", sched.P2)
		if err != nil {
			t.Fatal(err)
		}
		clk.Set(clk.Now().Add(d))
		s.Release()
	}
	// The prior (1 s) and the last two, 2 s and 7 s, about as fresh:
	// 10/3 s.
	if got, want := g.Stats().ServiceRate, 0.3; math.Abs(got-want) > 1e-4 {
		t.Errorf("rate after 1 s, 2 s, 7 s in a window of 2: %v, want %v", got, want)
	}
	for range 2 {
		if _, err := g.Acquire(t.Context(), "x", sched.P2); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := g.PredictWait("u", sched.P2, 1), 5000*time.Millisecond; (got - want).Abs() > time.Millisecond {
		t.Errorf("PredictWait with both busy at μ = 0.3/s: %v, want %v (1/0.6 + 1/0.3)", got, want)
	}
}

// TestRetryAfter: a request over its limit may retry once the queue
// ahead has drained by the difference; a request that would be over its
// limit even on an idle gate waits only for what is ahead of it, and is
// admitted on an idle gate: a prediction never refuses for good.
func TestRetryAfter(t *testing.T) {
	g := New(Options{Servers: 2})
	for range 2 {
		if _, err := g.Acquire(t.Context(), "x", sched.P2); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.Reserve("a", 10); err != nil { // a's next file: 11/2 + 1 = 6.5 s
		t.Fatal(err)
	}
	idle := New(Options{Servers: 2})
	tests := []struct {
		name  string
		g     *Gate
		files int
		limit time.Duration
		want  time.Duration
	}{
		{"fits", g, 1, 7 * time.Second, 0},
		{"fits exactly", g, 1, 6500 * time.Millisecond, 0},
		{"drain first", g, 1, 3 * time.Second, 3500 * time.Millisecond},
		// 110/2 + 1 = 56 s now, 98/2 + 1 = 50 s idle: wait for the 6 s ahead.
		{"too large even idle, behind others", g, 100, 10 * time.Second, 6 * time.Second},
		{"too large even idle, nothing ahead", idle, 100, 10 * time.Second, 0},
		{"no file", g, 0, time.Second, 0},
	}
	for _, tt := range tests {
		if got := tt.g.RetryAfter("a", sched.P2, tt.files, tt.limit); got != tt.want {
			t.Errorf("%s: RetryAfter(a, P2, %d, %v) = %v, want %v", tt.name, tt.files, tt.limit, got, tt.want)
		}
	}
	for n, want := range map[int]time.Duration{-1: 0, 0: 0, 3: 1500 * time.Millisecond} {
		if got := g.Drain(n); got != want {
			t.Errorf("Drain(%d) on 2 servers at 1/s = %v, want %v", n, got, want)
		}
	}
}

// TestPredictAgreesWithMMc: averaged over M/M/c's stationary
// distribution of the number n of files in the system, the gate's
// prediction for one more file is analyze.MMc's W (arrivals see time
// averages). Each state n is built on a gate: min(n, c) servers busy and
// n-c files of the same user reserved ahead.
func TestPredictAgreesWithMMc(t *testing.T) {
	tests := []struct {
		c          int
		lambda, mu float64
	}{
		{1, 0.5, 1},
		{3, 2.4, 1},
		{8, 5, 0.8},
		{2, 1.9, 2},
	}
	for _, tt := range tests {
		r, err := analyze.MMc(t.Context(), tt.lambda, tt.mu, tt.c)
		if err != nil {
			t.Fatal(err)
		}
		pred := func(n int) float64 {
			g := New(Options{Servers: tt.c, DefaultService: seconds(1 / tt.mu)})
			for range min(n, tt.c) {
				if _, err := g.Acquire(t.Context(), "u", sched.P2); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := g.Reserve("u", max(0, n-tt.c)); err != nil {
				t.Fatal(err)
			}
			return g.PredictWait("u", sched.P2, 1).Seconds()
		}
		mean, mass := 0.0, 0.0
		p := r.P0 // P(n) = P0·a^n/n! below c
		for n := 0; n < tt.c; n++ {
			mean += p * pred(n)
			mass += p
			p *= r.Load / float64(n+1)
		}
		for k := 0; math.Pow(r.Rho, float64(k)) > 1e-16; k++ { // P(c+k) = C(1-ρ)ρ^k
			p := r.PWait * (1 - r.Rho) * math.Pow(r.Rho, float64(k))
			mean += p * pred(tt.c+k)
			mass += p
		}
		if math.Abs(mass-1) > 1e-9 {
			t.Errorf("c=%d λ=%v μ=%v: the distribution sums to %v", tt.c, tt.lambda, tt.mu, mass)
		}
		if math.Abs(mean-r.W) > 1e-6*r.W {
			t.Errorf("c=%d λ=%v μ=%v: mean prediction %.9f s, MMc's W %.9f s", tt.c, tt.lambda, tt.mu, mean, r.W)
		}
	}
}
