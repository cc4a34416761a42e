package analyzecmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// engsetCommon are the fields of both variants' --json.
type engsetCommon struct {
	Variant     string  `json:"variant"`
	Sources     int     `json:"sources"`
	Alpha       float64 `json:"alpha"`
	Mu          float64 `json:"mu"`
	Servers     int     `json:"servers"`
	Beta        float64 `json:"beta"`
	Utilisation float64 `json:"utilisation"`
	Throughput  float64 `json:"throughput"`
}

type engsetBlockingFields struct {
	engsetCommon
	CallCongestion    float64 `json:"call_congestion"`
	TimeCongestion    float64 `json:"time_congestion"`
	Offered           float64 `json:"offered"`
	Carried           float64 `json:"carried"`
	TrafficCongestion float64 `json:"traffic_congestion"`
	AttemptRate       float64 `json:"attempt_rate"`
}

type engsetDelayFields struct {
	engsetCommon
	Capacity  int     `json:"capacity"`
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
	Busy      float64 `json:"busy"`
}

func engsetOutput(r analyze.EngsetResult) any {
	common := engsetCommon{Variant: r.Variant.String(), Sources: r.Sources, Alpha: r.Alpha, Mu: r.Mu,
		Servers: r.Servers, Beta: r.Beta, Utilisation: r.Utilisation, Throughput: r.Throughput}
	if r.Variant == analyze.EngsetBlocking {
		return engsetBlockingFields{engsetCommon: common, CallCongestion: r.CallCongestion,
			TimeCongestion: r.TimeCongestion, Offered: r.Offered, Carried: r.Busy,
			TrafficCongestion: r.TrafficCongestion, AttemptRate: r.AttemptRate}
	}
	return engsetDelayFields{engsetCommon: common, Capacity: r.Capacity, P0: r.P0, Log10P0: r.Log10P0, L: r.L,
		Lq: r.Lq, W: r.W, Wq: r.Wq, LambdaEff: r.LambdaEff, PWait: r.PWait, PBlock: r.PBlock, Idle: r.Idle, Busy: r.Busy}
}

func writeEngset(c *cli.Context, r analyze.EngsetResult) error {
	w := c.App.Writer
	if r.Variant == analyze.EngsetBlocking {
		title := fmt.Sprintf("Engset loss M/M/%d/%d/%d: α = %s per idle source, μ = %s, β = α/μ = %s",
			r.Servers, r.Servers, r.Sources, num(r.Alpha), num(r.Mu), num(r.Beta))
		return base.WriteMeasures(w, title, []base.Measure{
			{Name: "B   call congestion (share of requests blocked)", Value: num(r.CallCongestion)},
			{Name: "E   time congestion (share of time all servers busy)", Value: num(r.TimeCongestion)},
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
