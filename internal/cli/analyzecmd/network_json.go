package analyzecmd

import "calq/analyze"

// networkOutput is calq analyze network --json: what is undefined is
// null, never 0.
type networkOutput struct {
	Closed     bool                   `json:"closed"`
	Population *int                   `json:"population"`
	Throughput float64                `json:"throughput"`
	L          *float64               `json:"l"`
	W          *float64               `json:"w"`
	Response   *float64               `json:"response"`
	Stable     bool                   `json:"stable"`
	Unstable   []string               `json:"unstable"`
	Entries    []analyze.NetworkEntry `json:"entries"` // null when closed or unstable
	Stations   []stationJSONFields    `json:"stations"`
}

type stationJSONFields struct {
	Name      string   `json:"name"`
	Servers   *int     `json:"servers"`
	Mu        float64  `json:"mu"`
	Visits    float64  `json:"visits"`
	Lambda    float64  `json:"lambda"`
	Busy      float64  `json:"busy"`
	Rho       *float64 `json:"rho"`
	Stable    bool     `json:"stable"`
	PWait     *float64 `json:"p_wait"`
	Lq        *float64 `json:"lq"`
	L         *float64 `json:"l"`
	Wq        *float64 `json:"wq"`
	W         *float64 `json:"w"`
	Residence *float64 `json:"residence"`
}

// nullUnless is &v when defined, else nil.
func nullUnless[T any](v T, defined bool) *T {
	if !defined {
		return nil
	}
	return &v
}

func networkJSON(r analyze.NetworkResult) networkOutput {
	o := networkOutput{Closed: r.Closed, Population: nullUnless(r.Population, r.Closed), Throughput: r.Throughput,
		L: nullUnless(r.L, r.Stable), W: nullUnless(r.W, r.Stable), Response: nullUnless(r.Response, r.Closed),
		Stable: r.Stable, Unstable: append([]string{}, r.Unstable...), Entries: r.Entries}
	for _, s := range r.Stations {
		delay := s.Servers == analyze.InfiniteServers
		o.Stations = append(o.Stations, stationJSONFields{Name: s.Name, Servers: nullUnless(s.Servers, !delay),
			Mu: s.Mu, Visits: s.Visits, Lambda: s.Lambda, Busy: s.Busy, Rho: nullUnless(s.Rho, !delay), Stable: s.Stable,
			PWait: nullUnless(s.PWait, !r.Closed), Lq: nullUnless(s.Lq, s.Stable), L: nullUnless(s.L, s.Stable), Wq: nullUnless(s.Wq, s.Stable),
			W: nullUnless(s.W, s.Stable), Residence: nullUnless(s.Residence, s.Stable)})
	}
	return o
}
