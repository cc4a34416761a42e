package analyzecmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
	"calq/internal/fsio"
)

func networkCommand() *cli.Command {
	return &cli.Command{
		Name:      "network",
		Usage:     "open Jackson networks and closed networks (exact MVA) from a TOML file",
		ArgsUsage: "FILE",
		Description: "Reads a network of stations from FILE (TOML) and prints each station's\n" +
			"arrival rate λ, visits, utilisation ρ, P(wait), L, Lq, W and Wq (per visit)\n" +
			"and residence time (visits·W), then the network's throughput, L and W, and\n" +
			"with several entries, W of those entering at each.\n\n" +
			"  population = 10           # closed networks only: N customers\n" +
			"  [[station]]\n" +
			"  name = \"web\"\n" +
			"  servers = 2               # c (default 1), or \"infinite\": a delay station\n" +
			"  mu = 10                   # service rate of one server\n" +
			"  arrivals = 4              # open: arrivals per unit time from outside\n" +
			"  route = { convert = 0.7 } # where customers go next; the rest leaves\n" +
			"  visits = 1                # closed, instead of routes: visits per cycle\n\n" +
			"Open (no population): the traffic equations λ = γ + λP are solved exactly and\n" +
			"each station is an M/M/c queue (M/M/∞ if a delay station); W end to end is\n" +
			"L/Σγ. A station with ρ ≥ 1 is named, what is finite printed, and calq exits 1.\n" +
			"Closed: exact mean value analysis (Reiser-Lavenberg), multi-server stations\n" +
			"by their marginal probabilities; a closed network routed by probabilities\n" +
			"takes its visits per visit to the first station. Single class only.\n\n" +
			`--json prints one line {"message_type":"network", "closed", "population",` + "\n" +
			`"throughput", "l", "w", "response" (closed: W without delay stations),` + "\n" +
			`"stable", "unstable" [names], "entries" [{"name", "arrivals", "w"}] (open:` + "\n" +
			`W of those entering there), "stations" [{"name", "servers" (null: delay),` + "\n" +
			`"mu", "visits", "lambda", "busy", "rho" (null: delay), "stable", "p_wait"` + "\n" +
			`(null when closed), "lq", "l", "wq", "w", "residence"}]}; what an unstable` + "\n" +
			"station makes undefined is null.\n\n" +
			fmt.Sprintf("Limits, checked before any work: a file of at most %d bytes, %d stations,\n"+
				"rates from %g to %g, %d servers a station, a population of %d and\n"+
				"N·Σ(1+min(c,N)) at most %d MVA steps.", analyze.MaxNetworkBytes, analyze.MaxStations,
				analyze.MinRate, analyze.MaxRate, analyze.MaxServers, analyze.MaxPopulation, analyze.MaxMVASteps),
		Flags:  []cli.Flag{base.JSONFlag()},
		Action: networkAction,
	}
}

func networkAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return base.Usagef(c, "want one network FILE, got %d arguments", c.NArg())
	}
	path := c.Args().First()
	n, err := readNetwork(path)
	if err != nil {
		return base.Usagef(c, "%w", err)
	}
	solve := analyze.OpenNetwork
	if n.Closed() {
		solve = analyze.ClosedNetwork
	}
	res, err := solve(c.Context, n)
	if errors.Is(err, analyze.ErrInput) {
		return base.Usagef(c, "%w", networkFileErr(path, err))
	}
	if err != nil {
		return fmt.Errorf("analyze network %s: %w", path, err)
	}
	if c.Bool("json") {
		err = base.WriteJSONLine(c.App.Writer, "network", networkJSON(res))
	} else {
		err = writeNetwork(c.App.Writer, path, res)
	}
	if err == nil && !res.Stable {
		err = fmt.Errorf("the network is unstable: ρ ≥ 1 at %s", strings.Join(quotedNames(res.Unstable), ", "))
	}
	return err
}

// readNetwork reads and checks the network file at path; its errors name
// the file.
func readNetwork(path string) (analyze.Network, error) {
	b, err := fsio.ReadFile(path, analyze.MaxNetworkBytes)
	var tl *fsio.TooLargeError
	if errors.As(err, &tl) {
		return analyze.Network{}, fmt.Errorf("%w (a network file holds at most %s)", err, fsio.Size(tl.Limit))
	}
	if err != nil {
		return analyze.Network{}, err
	}
	n, err := analyze.ParseNetwork(bytes.NewReader(b))
	if err != nil {
		return analyze.Network{}, networkFileErr(path, err)
	}
	return n, nil
}

// networkFileErr puts path in front of each of the problems err joins, one a
// line, as compilers do, without the "invalid input" they all share.
func networkFileErr(path string, err error) error {
	var lines []string
	for _, e := range joinedErrors(err) {
		lines = append(lines, path+": "+strings.TrimPrefix(e.Error(), analyze.ErrInput.Error()+": "))
	}
	return fmt.Errorf("%s%w", strings.Join(lines, "\n"), quietErr{err})
}

// joinedErrors are the errors err joins, nested joins flattened.
func joinedErrors(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var errs []error
	for _, e := range j.Unwrap() {
		errs = append(errs, joinedErrors(e)...)
	}
	return errs
}

// quietErr wraps an error for errors.Is and As without adding to the message.
type quietErr struct{ err error }

func (q quietErr) Error() string { return "" }
func (q quietErr) Unwrap() error { return q.err }

func quotedNames(names []string) []string {
	var q []string
	for _, n := range names {
		q = append(q, fmt.Sprintf("%q", n))
	}
	return q
}

func writeNetwork(w io.Writer, path string, r analyze.NetworkResult) error {
	title := fmt.Sprintf("open network %s: %d stations, customers entering at %s per unit time", path, len(r.Stations), num(r.Throughput))
	if r.Closed {
		title = fmt.Sprintf("closed network %s: %d stations, %d customers, exact MVA", path, len(r.Stations), r.Population)
	}
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "station\tc\tμ\tvisits\tλ\tρ\tP(wait)\tL\tLq\tW\tWq\tresidence\t")
	for _, s := range r.Stations {
		fmt.Fprintln(tw, strings.Join(stationRow(s, r.Closed), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return base.WriteMeasures(w, "", networkTotals(r))
}

// stationRow is a station's line of the table: "-" where a measure is
// undefined (ρ of a delay station, P(wait) of a closed network, the
// steady state of an unstable station).
func stationRow(s analyze.StationResult, closed bool) []string {
	c, rho, pwait := fmt.Sprint(s.Servers), num(s.Rho), num(s.PWait)
	if s.Servers == analyze.InfiniteServers {
		c, rho = "∞", "-"
	}
	if closed {
		pwait = "-"
	}
	row := []string{s.Name, c, num(s.Mu), num(s.Visits), num(s.Lambda), rho, pwait}
	for _, v := range []float64{s.L, s.Lq, s.W, s.Wq, s.Residence} {
		if !s.Stable {
			row = append(row, "∞")
			continue
		}
		row = append(row, num(v))
	}
	return row
}

func networkTotals(r analyze.NetworkResult) []base.Measure {
	if r.Closed {
		return []base.Measure{
			{Name: "X   throughput (cycles per unit time)", Value: num(r.Throughput)},
			{Name: "cycle time N/X", Value: num(r.W)},
			{Name: "response time (cycle without delay stations)", Value: num(r.Response)},
		}
	}
	if !r.Stable {
		return []base.Measure{{Name: "stable", Value: "no: ρ ≥ 1 at " + strings.Join(quotedNames(r.Unstable), ", ") + "; L and W grow without bound"}}
	}
	rows := []base.Measure{
		{Name: "L   mean number in the network", Value: num(r.L)},
		{Name: "W   mean time from entering to leaving (L/Σγ)", Value: num(r.W)},
	}
	if len(r.Entries) > 1 {
		for _, e := range r.Entries {
			rows = append(rows, base.Measure{Name: fmt.Sprintf("W   entering at %s (%s per unit time)", e.Name, num(e.Arrivals)), Value: num(e.W)})
		}
	}
	return rows
}
