package analyzecmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// engsetOutput is calq analyze engset --json: the measures of both
// variants and those of the one asked for.
func engsetOutput(r analyze.EngsetResult) any {
	if r.Variant == analyze.EngsetBlocking {
		return struct {
			analyze.EngsetSystem
			analyze.EngsetLoss
		}{r.EngsetSystem, r.EngsetLoss}
	}
	return struct {
		analyze.EngsetSystem
		analyze.EngsetQueue
	}{r.EngsetSystem, r.EngsetQueue}
}

func writeEngset(c *cli.Context, r analyze.EngsetResult) error {
	w := c.App.Writer
	if r.Variant == analyze.EngsetBlocking {
		title := fmt.Sprintf("Engset loss M/M/%d/%d/%d: α = %s per idle source, μ = %s, β = α/μ = %s",
			r.Servers, r.Servers, r.Sources, num(r.Alpha), num(r.Mu), num(r.Beta))
		return base.WriteMeasures(w, title, []base.Measure{
			{Name: "B   call congestion (share of requests blocked)", Value: prob(r.CallCongestion, orZero(r.Log10CallCongestion))},
			{Name: "E   time congestion (share of time all servers busy)", Value: prob(r.TimeCongestion, orZero(r.Log10TimeCongestion))},
			{Name: "offered traffic Nβ/(1+β), Erlangs", Value: num(r.Offered)},
			{Name: "carried traffic (mean number busy), Erlangs", Value: num(r.Busy)},
			{Name: "traffic congestion (share of the offered lost)", Value: num(r.TrafficCongestion)},
			{Name: "attempt rate α(N - carried), blocked included", Value: num(r.AttemptRate)},
			{Name: "utilisation of each server", Value: num(r.Utilisation)},
			{Name: "throughput (served per unit time)", Value: num(r.Throughput)},
		})
	}
	title := fmt.Sprintf("Finite sources M/M/%d/%d/%d (machine repair): α = %s per idle source, μ = %s",
		r.Servers, r.Capacity, r.Sources, num(r.Alpha), num(r.Mu))
	return base.WriteMeasures(w, title, []base.Measure{
		{Name: "P0  probability the system is empty", Value: prob(r.P0, r.Log10P0)},
		{Name: "L   mean number in system (Ls)", Value: num(r.L)},
		{Name: "Lq  mean number waiting", Value: num(r.Lq)},
		{Name: "W   mean time in system (Ws)", Value: num(r.W)},
		{Name: "Wq  mean wait in queue", Value: num(r.Wq)},
		{Name: "λeff  effective arrival rate (= throughput)", Value: num(r.LambdaEff)},
		{Name: "utilisation of each server", Value: num(r.Utilisation)},
		{Name: "P(wait)  probability an entering request waits", Value: num(r.PWait)},
		{Name: "P(block) share of requests turned away (K full)", Value: num(r.PBlock)},
		{Name: "idle sources (mean, N - L)", Value: num(r.Idle)},
	})
}

// orZero is *p, or 0 for nil (prob then prints the value itself).
func orZero(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
