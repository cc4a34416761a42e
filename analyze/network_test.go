package analyze

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() { registerModel("network", networkQuantities) }

// networkQuantities solves testdata/networks/FILE and names its measures
// STATION.u, .w, .l, .x, and the network's throughput and w.
func networkQuantities(t *testing.T, p modelParams) map[string]float64 {
	t.Helper()
	res := solveFile(t, filepath.Join("testdata/networks", p["file"]))
	q := map[string]float64{"throughput": res.Throughput, "w": res.W}
	for _, s := range res.Stations {
		u := s.Rho
		if s.Servers == InfiniteServers {
			u = s.Busy
		}
		q[s.Name+".u"], q[s.Name+".w"], q[s.Name+".l"], q[s.Name+".x"] = u, s.W, s.L, s.Lambda
	}
	return q
}

func readNetwork(t *testing.T, name string) Network {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := ParseNetwork(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

func solveFile(t *testing.T, name string) NetworkResult {
	t.Helper()
	return solveNetwork(t, readNetwork(t, name))
}

func solveNetwork(t *testing.T, n Network) NetworkResult {
	t.Helper()
	solve := OpenNetwork
	if n.Closed() {
		solve = ClosedNetwork
	}
	res, err := solve(t.Context(), n)
	if err != nil {
		t.Fatalf("%+v: %v", n, err)
	}
	return res
}

func netNear(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestNetworkOneStation: a one-station open network is M/M/c, a delay
// station M/M/∞, and a one-station closed network holds all N.
func TestNetworkOneStation(t *testing.T) {
	for _, c := range []int{1, 2, 7, 100_000} {
		lambda, mu := 0.9*float64(c), 1.0
		res := solveNetwork(t, Network{Stations: []Station{{Name: "q", Servers: c, Mu: mu, Arrivals: lambda}}})
		want, err := MMc(t.Context(), lambda, mu, c)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Stations[0]
		if s.W != want.W || s.L != want.L || s.Wq != want.Wq || s.PWait != want.PWait || res.W != want.W {
			t.Errorf("c = %d: got W %v L %v Wq %v P(wait) %v network W %v, want M/M/c's %v %v %v %v", c, s.W, s.L, s.Wq, s.PWait, res.W,
				want.W, want.L, want.Wq, want.PWait)
		}
	}
	res := solveNetwork(t, Network{Stations: []Station{{Name: "think", Servers: InfiniteServers, Mu: 0.5, Arrivals: 3}}})
	if s := res.Stations[0]; s.L != 6 || s.W != 2 || s.Wq != 0 {
		t.Errorf("M/M/∞: got L %v W %v Wq %v, want 6 2 0", s.L, s.W, s.Wq)
	}
	for _, n := range []int{1, 5, 1000} {
		res := solveNetwork(t, Network{Population: n, Stations: []Station{{Name: "q", Servers: 1, Mu: 2, Visits: 1}}})
		if s := res.Stations[0]; s.L != float64(n) || s.Lambda != 2 || !netNear(res.W, float64(n)/2, 1e-12) {
			t.Errorf("closed, N = %d: got L %v X %v cycle %v, want %d 2 %v", n, s.L, s.Lambda, res.W, n, float64(n)/2)
		}
	}
}

// TestNetworkTandem: M/M/1 stations in a row give the sum of their W's.
func TestNetworkTandem(t *testing.T) {
	mus := []float64{3, 5, 2.5, 10}
	var n Network
	want := 0.0
	for i, mu := range mus {
		s := Station{Name: string(rune('a' + i)), Servers: 1, Mu: mu}
		if i == 0 {
			s.Arrivals = 2
		}
		if i+1 < len(mus) {
			s.Route = map[string]float64{string(rune('b' + i)): 1}
		}
		n.Stations = append(n.Stations, s)
		want += 1 / (mu - 2)
	}
	res := solveNetwork(t, n)
	if !netNear(res.W, want, 1e-13) {
		t.Errorf("tandem: got W %v, want %v", res.W, want)
	}
	// Entering at c instead: only c's and d's W's.
	n.Stations[0].Arrivals, n.Stations[2].Arrivals = 1, 1
	res = solveNetwork(t, n)
	wa := 0.0
	for _, s := range res.Stations {
		wa += s.W
	}
	wc := res.Stations[2].W + res.Stations[3].W
	if len(res.Entries) != 2 || !netNear(res.Entries[0].W, wa, 1e-13) || !netNear(res.Entries[1].W, wc, 1e-13) ||
		!netNear(res.W, (wa+wc)/2, 1e-13) {
		t.Errorf("two entries: got %+v and W %v, want a %v, c %v, W %v", res.Entries, res.W, wa, wc, (wa+wc)/2)
	}
}

// TestNetworkReductions: a station routing to itself with probability q
// is the station fed at γ/(1-q); a closed network of one customer cycles
// in ΣD (nobody waits); many customers saturate the bottleneck.
func TestNetworkReductions(t *testing.T) {
	loop := solveNetwork(t, Network{Stations: []Station{{Name: "a", Servers: 3, Mu: 2, Arrivals: 1.5, Route: map[string]float64{"a": 0.75}}}})
	want, err := MMc(t.Context(), 6, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if s := loop.Stations[0]; !netNear(s.Lambda, 6, 1e-14) || !netNear(s.L, want.L, 1e-12) || !netNear(loop.W, want.L/1.5, 1e-12) {
		t.Errorf("self-loop: got λ %v L %v W %v, want 6 %v %v", s.Lambda, s.L, loop.W, want.L, want.L/1.5)
	}
	n := readNetwork(t, "testdata/networks/multiserver.toml")
	sumD := 0.0
	for _, s := range n.Stations {
		sumD += s.Visits / s.Mu
	}
	n.Population = 1
	if res := solveNetwork(t, n); !netNear(res.W, sumD, 1e-14) {
		t.Errorf("N = 1: got cycle %v, want ΣD = %v", res.W, sumD)
	}
	n.Population = 5000 // b's 2 servers at 5, visited twice: X → 5
	if res := solveNetwork(t, n); !netNear(res.Throughput, 5, 1e-9) || !netNear(res.Stations[1].Rho, 1, 1e-9) {
		t.Errorf("N = 5000: got X %v, ρ_b %v, want 5 and 1", res.Throughput, res.Stations[1].Rho)
	}
}

// TestNetworkLaws: Little's law per station and overall, and MVA's
// throughput below the bottleneck's bound, on every file and on closed
// networks of growing population.
func TestNetworkLaws(t *testing.T) {
	files, _ := filepath.Glob("testdata/networks/*.toml")
	for _, name := range files {
		res := solveFile(t, name)
		sumL := 0.0
		for _, s := range res.Stations {
			if !netNear(s.L, s.Lambda*s.W, 1e-12) || !netNear(s.Lq, s.Lambda*s.Wq, 1e-9) {
				t.Errorf("%s %s: got L %v Lq %v, want λW %v λWq %v", name, s.Name, s.L, s.Lq, s.Lambda*s.W, s.Lambda*s.Wq)
			}
			sumL += s.L
		}
		if !netNear(res.L, sumL, 1e-12) || !netNear(res.L, res.Throughput*res.W, 1e-12) {
			t.Errorf("%s: got L %v, want ΣL %v and X·W %v", name, res.L, sumL, res.Throughput*res.W)
		}
	}
	n := readNetwork(t, "testdata/networks/multiserver.toml")
	for pop := 1; pop <= 200; pop += 13 {
		n.Population = pop
		res := solveNetwork(t, n)
		bound := math.Inf(1)
		for _, s := range n.Stations {
			if s.Servers != InfiniteServers {
				bound = min(bound, float64(s.Servers)*s.Mu/s.Visits)
			}
		}
		if res.Throughput > bound*(1+1e-12) {
			t.Errorf("N = %d: got X %v, above the bottleneck's cμ/v = %v", pop, res.Throughput, bound)
		}
	}
}

// TestNetworkBadInput: each problem named, with ErrInput, before work.
func TestNetworkBadInput(t *testing.T) {
	const web = "[[station]]\nname = \"web\"\nmu = 1\narrivals = 0.5\n"
	for _, tc := range []struct{ name, toml, want string }{
		{"row above 1", web + "route = { mail = 0.7, convert = 0.6 }\n[[station]]\nname = \"mail\"\nmu = 1\n[[station]]\nname = \"convert\"\nmu = 1\n",
			`station "web": route: the probabilities sum to 1.3, above 1`},
		{"negative rate", "[[station]]\nname = \"web\"\nmu = -2\narrivals = 1\n", `station "web": mu = -2 is not a positive number`},
		{"negative arrivals", "[[station]]\nname = \"web\"\nmu = 2\narrivals = -1\n", `station "web": arrivals = -1: -1 is not a positive number`},
		{"no mu", "[[station]]\nname = \"web\"\narrivals = 1\n", `station "web": mu: missing`},
		{"unknown station", web + "route = { mial = 0.5 }\n", `station "web": route.mial: no station is named "mial"`},
		{"no population", "[[station]]\nname = \"cpu\"\nmu = 1\nvisits = 1\n", "no station has arrivals and there is no population"},
		{"population 0", "population = 0\n" + web, "population = 0: want 1 to"},
		{"not toml", "station = [", "line 1"},
		{"unknown key", web + "lamda = 3\n", "unknown key station.lamda"},
		{"unknown table", "[queue]\nmu = 3\n" + web, "unknown key queue ("},
		{"wrong type", "[[station]]\nname = \"web\"\nmu = \"fast\"\n", "mu"},
		{"servers", web + "servers = 0\n", `station "web": servers = 0: want a whole number`},
		{"servers word", web + "servers = \"many\"\n", `servers = many: want a whole number from 1 to 10000000, or "infinite"`},
		{"twice", web + web, `station "web": the name is used twice`},
		{"never leaves", web + "route = { loop = 1 }\n[[station]]\nname = \"loop\"\nmu = 1\nroute = { web = 1 }\n",
			`customers at station "web", station "loop" never leave`},
		{"no traffic", web + "[[station]]\nname = \"idle\"\nmu = 1\n", `no traffic reaches station "idle"`},
		{"closed row below 1", "population = 3\n[[station]]\nname = \"a\"\nmu = 1\nroute = { a = 0.5 }\n", "in a closed network nobody leaves"},
		{"closed arrivals", "population = 3\n" + web, `arrivals = 0.5: a closed network has no arrivals`},
		{"closed not strongly connected", "population = 3\n[[station]]\nname = \"a\"\nmu = 1\nroute = { b = 1 }\n[[station]]\nname = \"b\"\nmu = 1\nroute = { b = 1 }\n",
			`no route leads from station "b" back to station "a"`},
		{"closed visits and routes", "population = 3\n[[station]]\nname = \"a\"\nmu = 1\nvisits = 1\n[[station]]\nname = \"b\"\nmu = 1\nroute = { a = 1 }\n",
			"visits or routes, not both"},
		{"too much work", "population = 20000\n[[station]]\nname = \"a\"\nservers = 20000\nmu = 1\nvisits = 1\n",
			"population = 20000: the MVA would take 8.0004e+08 steps (1 multi-server of 1 stations), more than the limit of 100000000"},
		{"too many stations", strings.Repeat("[[station]]\n", MaxStations+1), "1001 stations, more than the limit of 1000"},
		{"visits in an open network", web + "visits = 2\n", `station "web": visits = 2: visits are for a closed network`},
		{"too large", "# " + strings.Repeat("x", MaxNetworkBytes) + "\n" + web, "larger than the limit of 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseNetwork(strings.NewReader(tc.toml))
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInput with %q", err, tc.want)
			}
		})
	}
}

// TestNetworkUnstable: a station with ρ ≥ 1 is named, the rest measured.
func TestNetworkUnstable(t *testing.T) {
	n := Network{Stations: []Station{
		{Name: "web", Servers: 2, Mu: 10, Arrivals: 4, Route: map[string]float64{"convert": 1}},
		{Name: "convert", Servers: 1, Mu: 3},
	}}
	res := solveNetwork(t, n)
	if res.Stable || len(res.Unstable) != 1 || res.Unstable[0] != "convert" || res.W != 0 {
		t.Errorf("got stable %v unstable %v W %v, want false [convert] 0", res.Stable, res.Unstable, res.W)
	}
	if s := res.Stations[0]; !s.Stable || s.L == 0 {
		t.Errorf("web: got stable %v L %v, want its measures", s.Stable, s.L)
	}
	if s := res.Stations[1]; s.Stable || s.Rho != 4.0/3 || s.L != 0 {
		t.Errorf("convert: got stable %v ρ %v L %v, want false 4/3 0", s.Stable, s.Rho, s.L)
	}
}

// TestNetworkLimits: the MVA's work bound is checked before work, and
// a cancelled context stops both solvers.
func TestNetworkLimits(t *testing.T) {
	n := Network{Population: MaxPopulation, Stations: []Station{{Name: "a", Servers: 1000, Mu: 1, Visits: 1}}}
	if _, err := ClosedNetwork(t.Context(), n); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "the MVA would take") {
		t.Errorf("got %v, want ErrInput naming the MVA steps", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	n = Network{Population: 10, Stations: []Station{{Name: "a", Servers: 1, Mu: 1, Visits: 1}}}
	if _, err := ClosedNetwork(ctx, n); !errors.Is(err, context.Canceled) {
		t.Errorf("closed: got %v, want context.Canceled", err)
	}
	n = Network{Stations: []Station{{Name: "a", Servers: 1, Mu: 1, Arrivals: 0.5}}}
	if _, err := OpenNetwork(ctx, n); !errors.Is(err, context.Canceled) {
		t.Errorf("open: got %v, want context.Canceled", err)
	}
	loop := Network{Stations: []Station{{Name: "x", Servers: 1, Mu: 1e-90, Arrivals: 1e99, Route: map[string]float64{"x": 0.99}}}}
	if _, err := OpenNetwork(t.Context(), loop); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), `station "x": by the routing, lambda = 9.99999999999999e+100 is outside`) {
		t.Errorf("λ past the limits: got %v, want ErrInput naming the station", err)
	}
	if _, err := OpenNetwork(t.Context(), Network{Population: 2, Stations: n.Stations}); !errors.Is(err, ErrInput) {
		t.Errorf("open on a closed network: got %v, want ErrInput", err)
	}
}

// FuzzParseNetwork: any file parses into a network both solvers take, or
// is refused with ErrInput.
func FuzzParseNetwork(f *testing.F) {
	files, _ := filepath.Glob("testdata/networks/*.toml")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseNetwork(strings.NewReader(s))
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("got %v, want ErrInput", err)
			}
			return
		}
		solve := OpenNetwork
		if n.Closed() {
			solve = ClosedNetwork
		}
		r, err := solve(t.Context(), n)
		checkResult(t, "network", r, err)
	})
}

func ExampleOpenNetwork() {
	n, _ := ParseNetwork(strings.NewReader(`
[[station]]
name = "convert"
mu = 5
arrivals = 2
route = { mail = 1 }

[[station]]
name = "mail"
mu = 4
`))
	res, _ := OpenNetwork(context.Background(), n)
	for _, s := range res.Stations {
		fmt.Printf("%s: ρ = %.2f, W = %.4g\n", s.Name, s.Rho, s.W)
	}
	fmt.Printf("end to end: W = %.4g\n", res.W)
	// Output:
	// convert: ρ = 0.40, W = 0.3333
	// mail: ρ = 0.50, W = 0.5
	// end to end: W = 0.8333
}

// FuzzNetworkValues: extreme rates, probabilities, servers and
// populations give finite measures or ErrInput, open and closed.
func FuzzNetworkValues(f *testing.F) {
	for _, x := range extremes {
		f.Add(x, 1.0, 0.5, 2, 10)
		f.Add(1.0, x, 0.5, 3, 100)
		f.Add(1.0, 2.0, x, 1, 5)
	}
	f.Add(1e-100, 1e100, 1e-300, 1000, 2000)
	f.Fuzz(func(t *testing.T, mu1, mu2, p float64, c, pop int) {
		c, pop = min(max(c, -2), 5000), min(max(pop, -1), 5000)
		st := []Station{
			{Name: "a", Servers: c, Mu: mu1, Route: map[string]float64{"b": p, "c": 1 - p}},
			{Name: "b", Servers: 1, Mu: mu2, Route: map[string]float64{"a": 1}},
			{Name: "c", Servers: InfiniteServers, Mu: 1, Route: map[string]float64{"a": 1}},
		}
		r, err := ClosedNetwork(t.Context(), Network{Population: pop, Stations: st})
		checkResult(t, "ClosedNetwork", r, err)
		st[0].Arrivals, st[0].Route = 1, map[string]float64{"b": p / 2, "c": (1 - p) / 2}
		r, err = OpenNetwork(t.Context(), Network{Stations: st})
		checkResult(t, "OpenNetwork", r, err)
	})
}
