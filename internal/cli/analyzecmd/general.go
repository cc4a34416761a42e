package analyzecmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/analyze"
)

// A general service time, for mg1 and ggc, is given one way of three:
// --mean with --scv, --service DIST as simulate takes it, or --mu
// (exponential).
func serviceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "mean", Usage: "mean service time E[S] (with --scv)", DefaultText: "none"},
		&cli.Float64Flag{Name: "scv", Usage: "squared coefficient of variation of the service time, Var(S)/E[S]² (with --mean): 1 exponential, 0 constant", DefaultText: "none"},
		&cli.StringFlag{Name: "service", Usage: "the service time as simulate takes it: exp:RATE, const:SECONDS or lognormal:MEAN,CV"},
		&cli.Float64Flag{Name: "mu", Aliases: []string{"m"}, Usage: "service rate of an exponential service: short for --service exp:RATE", DefaultText: "none"},
	}
}

// serviceHelp explains serviceFlags, for a command's Description.
const serviceHelp = "The service time is given one way of three: --mean and --scv (its mean and\n" +
	"squared coefficient of variation, Var(S)/E[S]²: 1 for exponential, 0 for\n" +
	"constant), --service DIST as simulate takes it (exp:RATE, const:SECONDS,\n" +
	"lognormal:MEAN,CV, whose SCV is CV²), or --mu (exponential at rate μ)."

// generalService is a service time read from serviceFlags: its mean and
// SCV, and its distribution when --service or --mu named one.
type generalService struct {
	mean, scv float64
	dist      *analyze.Service
}

// spec is the distribution's spec, or nil when only moments were given.
func (s generalService) spec() *string {
	if s.dist == nil {
		return nil
	}
	v := s.dist.String()
	return &v
}

// service reads serviceFlags; exactly one way must be given.
func (f *flagCheck) service() generalService {
	ways := 0
	for _, name := range []string{"mean", "service", "mu"} {
		if f.c.IsSet(name) {
			ways++
		}
	}
	switch {
	case ways > 1:
		f.Errorf("%s: give the service time one way: --mean with --scv, --service DIST, or --mu", setFlags(f.c, "mean", "service", "mu"))
		return generalService{}
	case f.c.IsSet("scv") && !f.c.IsSet("mean"):
		f.Failf("scv", "needs --mean, the mean service time")
		return generalService{}
	case ways == 0:
		f.Failf("mean", "required: give --mean with --scv, --service DIST or --mu")
		return generalService{}
	case f.c.IsSet("mean"):
		s := generalService{mean: f.positive("mean")}
		if !f.c.IsSet("scv") {
			f.Failf("mean", "needs --scv, the squared coefficient of variation (1 exponential, 0 constant)")
		}
		s.scv = f.scvFlag("scv")
		return s
	case f.c.IsSet("service"):
		d, err := analyze.ParseService(f.c.String("service"))
		if err != nil {
			f.Add(flagErr("service", err))
			return generalService{}
		}
		return generalService{mean: d.MeanTime(), scv: d.SCV(), dist: &d}
	}
	d := analyze.Service{Kind: analyze.KindExp, Rate: f.positive("mu")}
	return generalService{mean: d.MeanTime(), scv: 1, dist: &d}
}

// scvFlag reads a squared coefficient of variation, from 0 to
// analyze.MaxSCV.
func (f *flagCheck) scvFlag(name string) float64 {
	v := f.c.Float64(name)
	if !(v >= 0 && v <= analyze.MaxSCV) {
		f.Failf(name, "%v is not a squared coefficient of variation from 0 to the limit %g", v, float64(analyze.MaxSCV))
	}
	return v
}

// setFlags lists the flags of names that are set, as "--a and --b".
func setFlags(c *cli.Context, names ...string) string {
	var s string
	for _, n := range names {
		if !c.IsSet(n) {
			continue
		}
		if s != "" {
			s += " and "
		}
		s += "--" + n
	}
	return s
}

// generalHelp is the limits of mg1 and ggc, for their help.
var generalHelp = fmt.Sprintf("Limits, checked before any work (a usage error names the flag and the limit):\n"+
	"rates and mean times from %g to %g, SCVs from 0 to %g, the offered load\n"+
	"λ·E[S] at most %g Erlangs, at most %d servers.", analyze.MinRate, analyze.MaxRate,
	float64(analyze.MaxSCV), float64(analyze.MaxLoad), analyze.MaxServers)
