package analyze

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/BurntSushi/toml"
)

// networkFile is the TOML form of a Network:
//
//	population = 10            # closed networks only
//	[[station]]
//	name = "web"
//	servers = 2                # or "infinite" (a delay station); default 1
//	mu = 10                    # service rate of one server
//	arrivals = 4               # from outside (open networks)
//	route = { convert = 0.7 }  # where customers go next; the rest leaves
//	visits = 1                 # closed networks, instead of route
type networkFile struct {
	Population *int64        `toml:"population"`
	Station    []stationFile `toml:"station"`
}

type stationFile struct {
	Name     string             `toml:"name"`
	Servers  any                `toml:"servers"`
	Mu       float64            `toml:"mu"`
	Arrivals float64            `toml:"arrivals"`
	Route    map[string]float64 `toml:"route"`
	Visits   float64            `toml:"visits"`
}

// ParseNetwork reads a network from TOML (see the README or networkFile
// above), at most MaxNetworkBytes, and checks it: unknown keys, values of
// the wrong type, routes to unknown stations, rows summing above 1,
// rates out of range, stations no traffic reaches. Every problem is named
// (by station and key) in one error wrapping ErrInput.
func ParseNetwork(r io.Reader) (Network, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxNetworkBytes+1))
	if err != nil {
		return Network{}, fmt.Errorf("reading the network: %w", err)
	}
	if len(data) > MaxNetworkBytes {
		return Network{}, inputErr("larger than the limit of %d bytes", MaxNetworkBytes)
	}
	var f networkFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return Network{}, networkTOMLErr(err)
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		return Network{}, unknownNetworkKeys(keys)
	}
	n, errs := f.network()
	if len(errs) == 0 {
		errs = append(errs, n.check())
	}
	if err := errors.Join(errs...); err != nil {
		return Network{}, err
	}
	if err := n.checkGraph(); err != nil {
		return Network{}, err
	}
	return n, nil
}

// networkTOMLErr is a syntax or type error, with its line when known.
func networkTOMLErr(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.Position.Line > 0 {
		return inputErr("line %d: %s", pe.Position.Line, pe.Message)
	}
	return inputErr("%s", strings.TrimPrefix(err.Error(), "toml: "))
}

// unknownNetworkKeys names the keys no field took; the keys inside an unknown
// table are left out, its name says enough.
func unknownNetworkKeys(keys []toml.Key) error {
	seen := map[string]bool{}
	var names []string
	for _, k := range keys {
		if !seen[toml.Key(k[:len(k)-1]).String()] {
			names = append(names, k.String())
		}
		seen[k.String()] = true
	}
	return inputErr("unknown key %s (a network has population and [[station]] tables of name, servers, mu, arrivals, route and visits)",
		strings.Join(names, ", "))
}

func (f networkFile) network() (Network, []error) {
	var n Network
	var errs []error
	if f.Population != nil {
		p := *f.Population
		if p < 1 || p > MaxPopulation {
			errs = append(errs, inputErr("population = %d: want 1 to %d customers", p, MaxPopulation))
		}
		n.Population = int(min(max(p, 0), MaxPopulation))
	}
	if len(f.Station) > MaxStations {
		return n, append(errs, inputErr("%d stations, more than the limit of %d", len(f.Station), MaxStations))
	}
	for i, s := range f.Station {
		c, err := parseServers(s.Servers)
		if err != nil {
			errs = append(errs, inputErr("%s: servers = %v: %v", stationName(i, s.Name), s.Servers, err))
		}
		n.Stations = append(n.Stations, Station{Name: s.Name, Servers: c, Mu: s.Mu, Arrivals: s.Arrivals,
			Route: s.Route, Visits: s.Visits})
	}
	return n, errs
}

// parseServers reads a station's servers: a whole number (1 when absent) or
// "infinite".
func parseServers(v any) (int, error) {
	switch v := v.(type) {
	case nil:
		return 1, nil
	case int64:
		if v >= 1 && v <= MaxServers {
			return int(v), nil
		}
	case string:
		if v == "infinite" {
			return InfiniteServers, nil
		}
	}
	return 1, fmt.Errorf("want a whole number from 1 to %d, or \"infinite\"", MaxServers)
}
