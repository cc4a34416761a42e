package analyze

import (
	"context"
	"math"
)

// EngsetVariant says what happens to a request that finds every server
// busy: it is lost (EngsetBlocking, the Engset loss system M/M/c/c/N) or
// it waits (EngsetDelay, the machine-repair model M/M/c/K/N).
type EngsetVariant int

const (
	EngsetBlocking EngsetVariant = iota + 1
	EngsetDelay
)

// MarshalText is the variant's name, for JSON.
func (v EngsetVariant) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

func (v EngsetVariant) String() string {
	switch v {
	case EngsetBlocking:
		return "blocking"
	case EngsetDelay:
		return "delay"
	}
	return "none"
}

// EngsetOptions describe a finite-source system: Sources users or
// machines, each of which, while idle, submits a request at rate Alpha;
// Servers exponential servers of rate Mu. Capacity (delay variant only)
// is the most requests in the system, those in service included; 0
// means Sources, so that no request is ever turned away.
type EngsetOptions struct {
	Sources  int
	Alpha    float64
	Mu       float64
	Servers  int
	Variant  EngsetVariant
	Capacity int
}

// EngsetResult holds the measures of a finite-source system: those of
// both variants, and those of its own (the other's are zero).
type EngsetResult struct {
	EngsetSystem
	EngsetLoss
	EngsetQueue
}

// EngsetSystem is what both variants report. Beta is α/μ, the load one
// idle source offers; Capacity is K (the servers in the blocking
// variant). Busy is the mean number of busy servers (the carried
// traffic, in Erlangs), Utilisation Busy/c, Throughput the completions
// per unit time (Busy·μ, also the rate of accepted requests). Rates are
// per unit of time; times in the unit of 1/α.
type EngsetSystem struct {
	Variant     EngsetVariant `json:"variant"`
	Sources     int           `json:"sources"`
	Alpha       float64       `json:"alpha"`
	Mu          float64       `json:"mu"`
	Servers     int           `json:"servers"`
	Capacity    int           `json:"capacity"`
	Beta        float64       `json:"beta"`
	Busy        float64       `json:"busy"`
	Utilisation float64       `json:"utilisation"`
	Throughput  float64       `json:"throughput"`
}

// EngsetLoss is the blocking variant's. CallCongestion is Engset's B,
// the share of requests that find every server busy (what a source
// sees); TimeCongestion E the share of time every server is busy (what
// an observer sees); Offered the traffic the sources would offer if none
// were ever blocked, N·β/(1+β); TrafficCongestion the share of it that
// is lost, 1 - Busy/Offered; AttemptRate the rate of requests, blocked
// ones included, α·(N - Busy).
type EngsetLoss struct {
	CallCongestion float64 `json:"call_congestion"`
	TimeCongestion float64 `json:"time_congestion"`
	// Log10CallCongestion and Log10TimeCongestion are their decimal
	// logarithms, exact also where they underflow float64 to 0 (null in
	// JSON when the congestion is exactly 0: c ≥ N, or c > N-1).
	Log10CallCongestion *float64 `json:"log10_call_congestion"`
	Log10TimeCongestion *float64 `json:"log10_time_congestion"`
	Offered             float64  `json:"offered"`
	TrafficCongestion   float64  `json:"traffic_congestion"`
	AttemptRate         float64  `json:"attempt_rate"`
}

// EngsetQueue is the delay variant's. P0 is the probability the system
// is empty (Log10P0 its decimal logarithm, exact where P0 underflows); L
// and Lq the mean numbers in the system and waiting; LambdaEff the rate
// of requests that enter, equal to Throughput; W and Wq the mean times
// in the system and waiting (L/λeff, Lq/λeff); PWait the share of
// entering requests that wait; PBlock the share of requests turned away
// because K are in the system (0 when K = N); Idle the mean number of
// sources outside the system, N - L.
type EngsetQueue struct {
	P0        float64 `json:"p0"`
	Log10P0   float64 `json:"log10_p0"`
	L         float64 `json:"l"`
	Lq        float64 `json:"lq"`
	W         float64 `json:"w"`
	Wq        float64 `json:"wq"`
	LambdaEff float64 `json:"lambda_eff"`
	PWait     float64 `json:"p_wait"`
	PBlock    float64 `json:"p_block"`
	Idle      float64 `json:"idle"`
}

// Engset computes a finite-source system's measures. The blocking
// variant takes Engset's time congestion E(N, c) by the recurrence
// E(k) = (N-k+1)β·E(k-1) / (k + (N-k+1)β·E(k-1)), E(0) = 1, each step in
// [0, 1] as Erlang B's, and the call congestion as E(N-1, c): O(min(c,
// N)). The delay variant sums the state weights of the birth-death chain
// (birth (N-n)α, death min(n, c)μ) in one pass, rescaled before they
// overflow: O(K) time and no array. With c ≥ N nothing is ever blocked
// or kept waiting. It returns ErrInput past the limits (MinRate, MaxRate,
// MaxLoad for α/μ, MaxCapacity for N and K, MaxServers for c), and
// ctx.Err() when ctx is cancelled.
func Engset(ctx context.Context, o EngsetOptions) (EngsetResult, error) {
	if err := o.check(); err != nil {
		return EngsetResult{}, err
	}
	r := EngsetResult{EngsetSystem: EngsetSystem{Variant: o.Variant, Sources: o.Sources, Alpha: o.Alpha,
		Mu: o.Mu, Servers: o.Servers, Capacity: o.Capacity, Beta: o.Alpha / o.Mu}}
	if o.Variant == EngsetBlocking {
		r.Capacity = o.Servers
		return engsetBlocking(ctx, r)
	}
	if r.Capacity == 0 {
		r.Capacity = o.Sources
	}
	return engsetDelay(ctx, r)
}

// check rejects options outside the limits, naming the option.
func (o EngsetOptions) check() error {
	if o.Sources < 1 || o.Sources > MaxCapacity {
		return inputErr("sources = %d: want 1 to %d", o.Sources, MaxCapacity)
	}
	if err := checkRate("alpha", o.Alpha); err != nil {
		return err
	}
	if err := checkRate("mu", o.Mu); err != nil {
		return err
	}
	if err := checkLoad(o.Alpha / o.Mu); err != nil {
		return err
	}
	if err := checkServers(o.Servers); err != nil {
		return err
	}
	switch o.Variant {
	case EngsetBlocking:
		if o.Capacity != 0 {
			return inputErr("capacity = %d: only the delay variant has a capacity", o.Capacity)
		}
	case EngsetDelay:
		if o.Capacity != 0 && (o.Capacity < min(o.Servers, o.Sources) || o.Capacity > o.Sources) {
			return inputErr("capacity = %d: want %d to the %d sources", o.Capacity, min(o.Servers, o.Sources), o.Sources)
		}
	default:
		return inputErr("variant = %d: want blocking or delay", int(o.Variant))
	}
	return nil
}

func engsetBlocking(ctx context.Context, r EngsetResult) (EngsetResult, error) {
	n, c, beta := r.Sources, r.Servers, r.Beta
	var err error
	if r.TimeCongestion, err = engsetTime(ctx, n, c, beta); err != nil {
		return EngsetResult{}, err
	}
	if r.CallCongestion, err = engsetTime(ctx, n-1, c, beta); err != nil {
		return EngsetResult{}, err
	}
	if r.Log10TimeCongestion, err = log10Congestion(ctx, n, c, beta, r.TimeCongestion); err != nil {
		return EngsetResult{}, err
	}
	if r.Log10CallCongestion, err = log10Congestion(ctx, n-1, c, beta, r.CallCongestion); err != nil {
		return EngsetResult{}, err
	}
	// Flow balance: the idle sources N - Y request at α, a share 1 - B
	// of them is served, and each stays 1/μ: Y = β(N - Y)(1 - B).
	open := 1 - r.CallCongestion
	r.Busy = beta * float64(n) * open / (1 + beta*open)
	r.Offered = float64(n) * beta / (1 + beta)
	r.TrafficCongestion = max(0, 1-r.Busy/r.Offered)
	r.AttemptRate = r.Alpha * (float64(n) - r.Busy)
	r.Utilisation = r.Busy / float64(c)
	r.Throughput = r.Busy * r.Mu
	return r, nil
}

// engsetTime is the time congestion of n sources offering β each to c
// servers: the probability that all c are busy, 0 when c > n.
func engsetTime(ctx context.Context, n, c int, beta float64) (float64, error) {
	if c > n {
		return 0, nil
	}
	e := 1.0
	for k := 1; k <= c; k++ {
		if err := stopped(ctx, k); err != nil {
			return 0, err
		}
		x := float64(n-k+1) * beta * e
		e = x / (float64(k) + x)
	}
	return e, nil
}

// log10Congestion is log10 of the time congestion e of n sources: from e
// itself while it is above tinyB, else by the recurrence on ln(1/E),
// ln(1/E(k)) = ln(1/E(k-1)) + r + ln(1 + e^-(r + ln(1/E(k-1)))) with
// r = ln(k / ((n-k+1)β)); nil when e is exactly 0 (c > n).
func log10Congestion(ctx context.Context, n, c int, beta, e float64) (*float64, error) {
	if c > n {
		return nil, nil
	}
	if e >= tinyB {
		v := math.Log10(e)
		return &v, nil
	}
	// The additions are compensated (Kahan): 10^7 roundings would cost
	// about 7 digits.
	inv, comp, lb := 0.0, 0.0, math.Log(beta)
	for k := 1; k <= c; k++ {
		if err := stopped(ctx, k); err != nil {
			return nil, err
		}
		r := math.Log(float64(k)) - math.Log(float64(n-k+1)) - lb
		d := r + math.Log1p(math.Exp(-(r + inv))) - comp
		t := inv + d
		comp = (t - inv) - d
		inv = t
	}
	v := -inv / math.Ln10
	return &v, nil
}
