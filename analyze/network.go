package analyze

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// Limits of a network, checked before any work.
const (
	// MaxStations bounds the stations of a network: the traffic equations
	// are a dense K×K system solved in O(K³), about a second at 1000.
	MaxStations = 1000
	// MaxPopulation bounds a closed network's customers N, and
	// MaxMVASteps the steps of its MVA, N·Σ(1 + min(c, N)) over the
	// stations: a second or two.
	MaxPopulation = 1_000_000
	MaxMVASteps   = 100_000_000
	// MaxNetworkBytes bounds a network file.
	MaxNetworkBytes = 1 << 20
)

// InfiniteServers is Station.Servers for a delay station (infinite servers,
// M/M/∞): nobody waits, a customer stays 1/μ. A closed network's think
// time is one.
const InfiniteServers = -1

// Network is a single-class queueing network of FIFO stations with
// exponential service. It is open (customers arrive from outside at
// Station.Arrivals and leave by the routing) when Population is 0, and
// closed (Population customers circulate for ever) otherwise.
type Network struct {
	Population int       `json:"population,omitempty"`
	Stations   []Station `json:"stations"`
}

// Station is one station of a Network.
type Station struct {
	Name    string  `json:"name"`
	Servers int     `json:"servers"` // c ≥ 1, or InfiniteServers
	Mu      float64 `json:"mu"`      // service rate of one server
	// Arrivals is the rate γ of arrivals from outside (open networks).
	Arrivals float64 `json:"arrivals,omitempty"`
	// Route holds the probability that a customer leaving this station
	// goes next to the named one; an open network's rows may sum to less
	// than 1 (the rest leaves), a closed network's sum to 1.
	Route map[string]float64 `json:"route,omitempty"`
	// Visits is a closed network's visit ratio, given instead of routes:
	// the mean visits to this station per visit to the first.
	Visits float64 `json:"visits,omitempty"`
}

// Closed says whether n is a closed network.
func (n Network) Closed() bool { return n.Population > 0 }

// routeSlack is how far above 1 a routing row may sum, or a closed
// network's row below 1, for the rounding of decimal probabilities.
const routeSlack = 1e-9

// check returns every problem of n, each wrapping ErrInput and naming
// the station and the key, or nil. It looks at every input once, before
// any work: O(K + routes).
func (n Network) check() error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, inputErr(format, args...)) }
	switch k := len(n.Stations); {
	case k == 0:
		fail("no stations")
	case k > MaxStations:
		fail("%d stations, more than the limit of %d", k, MaxStations)
	}
	if n.Population < 0 || n.Population > MaxPopulation {
		fail("population = %d: want 1 to %d customers (or none for an open network)", n.Population, MaxPopulation)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	index := map[string]int{}
	for i, s := range n.Stations {
		at := stationName(i, s.Name)
		if _, dup := index[s.Name]; dup {
			fail("%s: the name is used twice", at)
		}
		index[s.Name] = i
		errs = append(errs, s.check(at, n.Closed())...)
	}
	for i, s := range n.Stations {
		errs = append(errs, checkRoute(stationName(i, s.Name), s, index, n.Closed())...)
	}
	errs = append(errs, n.checkKind()...)
	if len(errs) == 0 && n.Closed() {
		errs = append(errs, n.checkWork())
	}
	return errors.Join(errs...)
}

// stationName names station i for messages: by its name, or its place
// when it has none.
func stationName(i int, name string) string {
	if name == "" {
		return fmt.Sprintf("station %d", i+1)
	}
	return fmt.Sprintf("station %q", name)
}

func (s Station) check(at string, closed bool) []error {
	var errs []error
	if s.Name == "" {
		errs = append(errs, inputErr("%s: no name", at))
	}
	if s.Servers != InfiniteServers && (s.Servers < 1 || s.Servers > MaxServers) {
		errs = append(errs, inputErr("%s: servers = %d: want 1 to %d, or \"infinite\"", at, s.Servers, MaxServers))
	}
	if s.Mu == 0 {
		errs = append(errs, inputErr("%s: mu: missing (the service rate of one server)", at))
	} else if p := RateProblem(s.Mu); p != "" {
		errs = append(errs, inputErr("%s: mu = %s", at, p))
	}
	if s.Arrivals != 0 && (closed || !InRange(s.Arrivals)) {
		why := "a closed network has no arrivals from outside"
		if !closed {
			why = RateProblem(s.Arrivals)
		}
		errs = append(errs, inputErr("%s: arrivals = %v: %s", at, s.Arrivals, why))
	}
	if s.Visits != 0 && (!closed || !InRange(s.Visits)) {
		why := "visits are for a closed network; an open one routes"
		if closed {
			why = RateProblem(s.Visits)
		}
		errs = append(errs, inputErr("%s: visits = %v: %s", at, s.Visits, why))
	}
	return errs
}

// checkRoute checks one station's routing row: known stations,
// probabilities in [0, 1], a sum at most 1 (exactly 1 when closed).
func checkRoute(at string, s Station, index map[string]int, closed bool) []error {
	var errs []error
	sum := 0.0
	for _, to := range slices.Sorted(maps.Keys(s.Route)) {
		p := s.Route[to]
		if _, ok := index[to]; !ok {
			errs = append(errs, inputErr("%s: route.%s: no station is named %q", at, to, to))
		}
		if !(p >= 0 && p <= 1) {
			errs = append(errs, inputErr("%s: route.%s = %v is not a probability from 0 to 1", at, to, p))
			continue
		}
		sum += p
	}
	switch {
	case sum > 1+routeSlack:
		errs = append(errs, inputErr("%s: route: the probabilities sum to %.12g, above 1", at, sum))
	case closed && len(s.Route) > 0 && math.Abs(sum-1) > routeSlack:
		errs = append(errs, inputErr("%s: route: the probabilities sum to %.12g; in a closed network nobody leaves, so they sum to 1", at, sum))
	}
	return errs
}

// checkKind checks what makes n open or closed: arrivals somewhere, or
// visits for every station or routes for every station.
func (n Network) checkKind() []error {
	arrivals, visits, routes := 0, 0, 0
	for _, s := range n.Stations {
		arrivals += countTrue(s.Arrivals > 0)
		visits += countTrue(s.Visits > 0)
		routes += countTrue(len(s.Route) > 0)
	}
	switch {
	case !n.Closed() && arrivals == 0:
		return []error{inputErr("no station has arrivals and there is no population: an open network needs arrivals from outside, a closed one a population")}
	case n.Closed() && visits > 0 && routes > 0:
		return []error{inputErr("a closed network gives visits or routes, not both")}
	case n.Closed() && visits > 0 && visits < len(n.Stations):
		return []error{inputErr("%d of %d stations give visits: give them for every station", visits, len(n.Stations))}
	case n.Closed() && visits == 0 && routes < len(n.Stations):
		return []error{inputErr("a closed network needs visits for every station, or a route out of every station")}
	}
	return nil
}

func countTrue(b bool) int {
	if b {
		return 1
	}
	return 0
}
