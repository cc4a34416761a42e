package analyze

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

func init() {
	registerModel("mg1", func(t *testing.T, p modelParams) map[string]float64 {
		r, err := MG1(t.Context(), p.float(t, "lambda"), p.float(t, "mean"), p.float(t, "scv"))
		if err != nil {
			t.Fatalf("MG1: %v", err)
		}
		return map[string]float64{"rho": r.Rho, "p0": r.P0, "p_wait": r.PWait, "lq": r.Lq, "l": r.L,
			"wq": r.Wq, "w": r.W, "throughput": r.Throughput}
	})
	registerModel("ggc", func(t *testing.T, p modelParams) map[string]float64 {
		r, err := GGc(t.Context(), p.float(t, "lambda"), p.float(t, "ca2"), p.float(t, "mean"), p.float(t, "scv"), p.int(t, "c"))
		if err != nil {
			t.Fatalf("GGc: %v", err)
		}
		return map[string]float64{"rho": r.Rho, "p_wait": r.PWait, "lq": r.Lq, "l": r.L,
			"wq": r.Wq, "w": r.W, "throughput": r.Throughput}
	})
}

// TestMG1Exponential: Pollaczek–Khinchine with SCV 1 is M/M/1, and M/D/1
// waits half as long.
func TestMG1Exponential(t *testing.T) {
	for _, tt := range []struct {
		name       string
		lambda, mu float64
	}{
		{"rho 0.1", 0.1, 1}, {"rho 0.5", 1, 2}, {"rho 0.9", 9, 10}, {"rho 0.999", 0.999, 1}, {"tiny rates", 3e-90, 4e-90},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			mm1, err := MMc(ctx, tt.lambda, tt.mu, 1)
			if err != nil {
				t.Fatal(err)
			}
			mg1, err := MG1(ctx, tt.lambda, 1/tt.mu, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []struct {
				name      string
				got, want float64
			}{
				{"rho", mg1.Rho, mm1.Rho}, {"P0", mg1.P0, mm1.P0}, {"P(wait)", mg1.PWait, mm1.PWait},
				{"Lq", mg1.Lq, mm1.Lq}, {"L", mg1.L, mm1.L}, {"Wq", mg1.Wq, mm1.Wq}, {"W", mg1.W, mm1.W},
			} {
				if !near(q.got, q.want, 1e-12) {
					t.Errorf("%s = %.15g, want M/M/1's %.15g", q.name, q.got, q.want)
				}
			}
			md1, err := MG1(ctx, tt.lambda, 1/tt.mu, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !near(md1.Lq, mm1.Lq/2, 1e-12) || !near(md1.Wq, mm1.Wq/2, 1e-12) {
				t.Errorf("M/D/1 Lq, Wq = %g, %g, want half of M/M/1's, %g, %g", md1.Lq, md1.Wq, mm1.Lq/2, mm1.Wq/2)
			}
		})
	}
}

// TestMG1DistSpread: the wait's standard deviation (Takács) for
// exponential service equals M/M/1's, whose wait is 0 with probability
// 1−ρ and else exponential at μ−λ: E[Wq²] = 2ρ/(μ−λ)². For constant
// service, W's spread is the wait's.
func TestMG1DistSpread(t *testing.T) {
	ctx := t.Context()
	for _, rho := range []float64{0.2, 0.7, 0.95} {
		mu := 2.0
		lambda := rho * mu
		r, err := MG1Dist(ctx, lambda, Service{Kind: KindExp, Rate: mu})
		if err != nil {
			t.Fatal(err)
		}
		wq := rho / (mu - lambda)
		wantSD := math.Sqrt(2*rho/((mu-lambda)*(mu-lambda)) - wq*wq)
		if !near(r.WqSD, wantSD, 1e-12) {
			t.Errorf("ρ = %g: Wq's SD = %.15g, want %.15g", rho, r.WqSD, wantSD)
		}
		// M/M/1's time in system is exponential at μ−λ: SD = mean.
		if !near(r.WSD, 1/(mu-lambda), 1e-12) {
			t.Errorf("ρ = %g: W's SD = %.15g, want %.15g", rho, r.WSD, 1/(mu-lambda))
		}
		d, err := MG1Dist(ctx, lambda, Service{Kind: KindConst, Mean: 1 / mu})
		if err != nil {
			t.Fatal(err)
		}
		if d.WSD != d.WqSD || d.ThirdRatio != 1 {
			t.Errorf("ρ = %g, M/D/1: W's SD %g, Wq's %g, third ratio %g: want equal SDs and 1", rho, d.WSD, d.WqSD, d.ThirdRatio)
		}
	}
	// A lognormal's E[S³] = Mean³(1+CV²)³ overflows at these values;
	// the spread does not.
	r, err := MG1Dist(ctx, 1e-100, Service{Kind: KindLognormal, Mean: 0.5e100, CV: MaxCV})
	if err != nil || !(r.WqSD > 0) || math.IsInf(r.WqSD, 0) || math.IsInf(r.WSD, 0) {
		t.Errorf("huge lognormal: Wq's SD %g, W's %g, err %v; want finite", r.WqSD, r.WSD, err)
	}
}

// TestMG1Unstable: ρ ≥ 1 is a result, with P(wait) = 1 and no measures.
func TestMG1Unstable(t *testing.T) {
	for _, rho := range []float64{1, 1.5, 1e15} {
		r, err := MG1(t.Context(), rho, 1, 2)
		if err != nil || r.Stable || r.PWait != 1 || r.Wq != 0 || r.Rho != rho {
			t.Errorf("ρ = %g: %+v, %v; want unstable with P(wait) 1 and no measures", rho, r, err)
		}
	}
}

// TestGeneralInputErrors: bad means, SCVs, rates and server counts are
// ErrInput naming the input, before any work.
func TestGeneralInputErrors(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name                   string
		lambda, ca2, mean, scv float64
		c                      int
		want                   string
	}{
		{"negative mean", 1, 1, -1, 1, 1, "mean = -1"},
		{"zero mean", 1, 1, 0, 1, 1, "mean = 0"},
		{"negative scv", 1, 1, 0.5, -0.1, 1, "scv = -0.1"},
		{"NaN scv", 1, 1, 0.5, math.NaN(), 1, "scv = NaN"},
		{"scv past the limit", 1, 1, 0.5, MaxSCV * 2, 1, "scv = 2e+06"},
		{"infinite lambda", math.Inf(1), 1, 0.5, 1, 1, "lambda = +Inf"},
		{"load past MaxLoad", 1e10, 1, 1e10, 1, 1, "load"},
		{"negative ca2", 1, -1, 0.5, 1, 1, "ca2 = -1"},
		{"no servers", 1, 1, 0.5, 1, 0, "servers = 0"},
		{"too many servers", 1, 1, 0.5, 1, MaxServers + 1, "servers = 10000001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := GGc(ctx, tt.lambda, tt.ca2, tt.mean, tt.scv, tt.c)
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("GGc: %v, want ErrInput naming %q", err, tt.want)
			}
			if tt.ca2 != 1 || tt.c != 1 {
				return // MG1 takes neither
			}
			if _, err := MG1(ctx, tt.lambda, tt.mean, tt.scv); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("MG1: %v, want ErrInput naming %q", err, tt.want)
			}
		})
	}
	if _, err := MG1Dist(ctx, 1, Service{Kind: KindLognormal, Mean: 1, CV: -1}); !errors.Is(err, ErrInput) {
		t.Errorf("MG1Dist with CV -1: %v, want ErrInput", err)
	}
}

// TestGeneralCancelled: a cancelled context stops MG1 at once and GGc
// within its Erlang C loop, even at c = MaxServers.
func TestGeneralCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MG1(ctx, 0.5, 1, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("MG1: %v, want context.Canceled", err)
	}
	if _, err := GGc(ctx, 1, 1, 1, 1, MaxServers); !errors.Is(err, context.Canceled) {
		t.Errorf("GGc: %v, want context.Canceled", err)
	}
}
