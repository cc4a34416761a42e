package analyze

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// NetworkResult holds a network's measures, per station and end to end.
// Times are in the unit of 1/μ.
type NetworkResult struct {
	Closed     bool            `json:"closed"`
	Population int             `json:"population,omitempty"`
	Stations   []StationResult `json:"stations"`
	// Throughput is open: Σγ, the customers entering (and leaving) per
	// unit time; closed: X(N), cycles per unit time, a cycle being one
	// round of the visits (one visit to the first station when routed).
	Throughput float64 `json:"throughput"`
	// L is the mean number of customers in the network (N when closed).
	L float64 `json:"l"`
	// W is open: the mean time from entering to leaving, L/Σγ (Little);
	// closed: the cycle time N/X.
	W float64 `json:"w"`
	// Response is a closed network's cycle time without its delay
	// stations (the think time): the time spent at the queueing stations.
	Response float64 `json:"response,omitempty"`
	// Stable is false when a station of an open network has ρ ≥ 1,
	// named in Unstable; L and W are then 0 (there is no steady state),
	// and so are the unstable stations' L, Lq, W and Wq.
	Stable   bool     `json:"stable"`
	Unstable []string `json:"unstable,omitempty"`
	// Entries are an open, stable network's stations with arrivals from
	// outside, each with the mean time from entering there to leaving.
	Entries []NetworkEntry `json:"entries,omitempty"`
}

// NetworkEntry is where customers enter an open network, and how long those
// who enter there stay: T = W + PT over the stations, solved once.
type NetworkEntry struct {
	Name     string  `json:"name"`
	Arrivals float64 `json:"arrivals"`
	W        float64 `json:"w"`
}

// StationResult holds one station's measures.
type StationResult struct {
	Name    string  `json:"name"`
	Servers int     `json:"servers"` // InfiniteServers (-1) for a delay station
	Mu      float64 `json:"mu"`
	// Visits is the mean visits per customer (open: λ/Σγ) or per cycle
	// (closed).
	Visits float64 `json:"visits"`
	Lambda float64 `json:"lambda"` // arrival rate, and throughput when stable
	// Busy is the mean number of busy servers, λ/μ; Rho the utilisation
	// of each, Busy/c (0 for a delay station).
	Busy   float64 `json:"busy"`
	Rho    float64 `json:"rho"`
	Stable bool    `json:"stable"`
	// PWait is the probability an arrival waits (open networks: Erlang C
	// of the station's M/M/c; 1 when unstable; 0 when closed, where MVA
	// does not give it).
	PWait float64 `json:"p_wait"`
	Lq    float64 `json:"lq"`
	L     float64 `json:"l"`
	Wq    float64 `json:"wq"` // per visit
	W     float64 `json:"w"`  // per visit
	// Residence is Visits·W, the time a customer (open) or a cycle
	// (closed) spends at the station in all.
	Residence float64 `json:"residence"`
}

// OpenNetwork solves an open Jackson network: the traffic equations
// λ = γ + λP by Gaussian elimination with partial pivoting (O(K³)), then
// each station as an M/M/c queue with its λ (MMc, exact; M/M/∞ for a
// delay station). A station with ρ ≥ 1 is not an error: the result says
// Stable false and names it. It returns ErrInput for a closed or invalid
// network (see Network and the limits), and ctx.Err() when cancelled.
func OpenNetwork(ctx context.Context, n Network) (NetworkResult, error) {
	if err := n.check(); err != nil {
		return NetworkResult{}, err
	}
	if n.Closed() {
		return NetworkResult{}, inputErr("the network is closed (population %d): solve it with ClosedNetwork", n.Population)
	}
	if err := n.checkGraph(); err != nil {
		return NetworkResult{}, err
	}
	gamma := make([]float64, len(n.Stations))
	res := NetworkResult{Stable: true}
	for i, s := range n.Stations {
		gamma[i] = s.Arrivals
		res.Throughput += s.Arrivals
	}
	lambda, err := solveLinear(ctx, trafficSystem(n.routing()), gamma)
	if err != nil {
		return NetworkResult{}, fmt.Errorf("open network: %w", err)
	}
	for i, s := range n.Stations {
		st, err := openStation(ctx, s, lambda[i], res.Throughput)
		if errors.Is(err, ErrInput) { // λ from the routing past the limits
			return NetworkResult{}, inputErr("%s: by the routing, %s", stationName(i, s.Name), strings.TrimPrefix(err.Error(), ErrInput.Error()+": "))
		}
		if err != nil {
			return NetworkResult{}, err
		}
		res.Stations = append(res.Stations, st)
		res.L += st.L
		if !st.Stable {
			res.Stable = false
			res.Unstable = append(res.Unstable, s.Name)
		}
	}
	res.W = res.L / res.Throughput
	if !res.Stable {
		res.L, res.W = 0, 0
		return res, nil
	}
	res.Entries, err = entryTimes(ctx, n, res.Stations)
	return res, err
}

// entryTimes solves T = W + PT, T_i the mean time from arriving at station i
// to leaving the network: (I - P)T = W, O(K³) as the traffic equations.
func entryTimes(ctx context.Context, n Network, st []StationResult) ([]NetworkEntry, error) {
	p := n.routing()
	a := make([][]float64, len(p))
	w := make([]float64, len(p))
	for i := range p {
		a[i] = make([]float64, len(p))
		for j := range p {
			a[i][j] = -p[i][j]
		}
		a[i][i]++
		w[i] = st[i].W
	}
	t, err := solveLinear(ctx, a, w)
	if err != nil {
		return nil, fmt.Errorf("open network: %w", err)
	}
	var es []NetworkEntry
	for i, s := range n.Stations {
		if s.Arrivals > 0 {
			es = append(es, NetworkEntry{Name: s.Name, Arrivals: s.Arrivals, W: t[i]})
		}
	}
	return es, nil
}

// openStation is station s fed at lambda, as M/M/c or M/M/∞.
func openStation(ctx context.Context, s Station, lambda, entering float64) (StationResult, error) {
	st := StationResult{Name: s.Name, Servers: s.Servers, Mu: s.Mu, Lambda: lambda,
		Visits: lambda / entering, Busy: lambda / s.Mu, Stable: true}
	if s.Servers == InfiniteServers {
		if err := checkRates(lambda, s.Mu); err != nil {
			return StationResult{}, err
		}
		st.L, st.W, st.Residence = st.Busy, 1/s.Mu, st.Visits/s.Mu
		return st, nil
	}
	r, err := MMc(ctx, lambda, s.Mu, s.Servers)
	if err != nil {
		return StationResult{}, err
	}
	st.Rho, st.Stable, st.PWait = r.Rho, r.Stable, r.PWait
	if r.Stable {
		st.Lq, st.L, st.Wq, st.W = r.Lq, r.L, r.Wq, r.W
		st.Residence = st.Visits * r.W
	}
	return st, nil
}
