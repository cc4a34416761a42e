package analyzecmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
)

// simModel reads what calq analyze simulate is to simulate into o: the
// arrivals (--arrivals, or --lambda, whose list of two rates or more
// makes priority classes), the service (--service or --mu, one for all
// classes or one per class), the patience (--theta or --patience) and
// --preemptive. Each problem is added to errs, naming its flag.
func simModel(c *cli.Context, o *analyze.SimOptions, errs *base.FlagErrors) {
	errs.Add(simPatience(c, o))
	lambdas, err := simLambdas(c)
	errs.Add(err)
	svcs, err := simServices(c)
	errs.Add(err)
	if err != nil || lambdas == nil && c.IsSet("lambda") {
		return // nothing more to say about the classes
	}
	if len(lambdas) < 2 && c.Bool("preemptive") {
		errs.Failf("preemptive", "needs priority classes: give --lambda two rates or more, highest first")
	}
	o.Preemptive = len(lambdas) > 1 && c.Bool("preemptive")
	if len(lambdas) < 2 {
		if c.IsSet("lambda") {
			o.Arrivals = analyze.Arrivals{Kind: analyze.KindExp, Rate: lambdas[0]}
		} else {
			o.Arrivals, err = analyze.ParseArrivals(c.String("arrivals"))
			errs.Add(flagErr("arrivals", err))
		}
		if len(svcs) > 1 {
			errs.Failf(serviceFlag(c), "%d services but no priority classes: give --lambda one rate per class", len(svcs))
			return
		}
		o.Service = svcs[0]
		return
	}
	if len(svcs) > 1 && len(svcs) != len(lambdas) {
		errs.Failf(serviceFlag(c), "%d services for %d classes: give one for all classes, or one per class", len(svcs), len(lambdas))
		return
	}
	for i, l := range lambdas {
		o.Classes = append(o.Classes, analyze.SimClass{Rate: l, Service: svcs[min(i, len(svcs)-1)]})
	}
}

// simLambdas reads --lambda, a rate or a list of them: nil when it is
// not set or is wrong; with --arrivals too it is wrong.
func simLambdas(c *cli.Context) ([]float64, error) {
	if !c.IsSet("lambda") {
		return nil, nil
	}
	if c.IsSet("arrivals") {
		return nil, errors.New("--lambda: give --lambda or --arrivals, not both")
	}
	return simRates(c.String("lambda"), "lambda")
}

// simRates reads a comma list of at most analyze.MaxClasses rates for
// --name; one rate alone is worded as before lists existed.
func simRates(s, name string) ([]float64, error) {
	items := strings.Split(s, ",")
	if len(items) > analyze.MaxClasses {
		return nil, flagErr(name, fmt.Errorf("%d rates, above the limit of %d classes", len(items), analyze.MaxClasses))
	}
	var errs []error
	vs := make([]float64, len(items))
	for i, item := range items {
		which := "rate"
		if len(items) > 1 {
			which = "item " + strconv.Itoa(i+1) + ": rate"
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(item), 64)
		switch {
		case err != nil:
			errs = append(errs, flagErr(name, fmt.Errorf("%s %q is not a number", which, item)))
		case analyze.RateProblem(v) != "":
			errs = append(errs, flagErr(name, fmt.Errorf("%s %s", which, analyze.RateProblem(v))))
		}
		vs[i] = v
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return vs, nil
}

// simServices reads --service, one spec or several (a comma starts a new
// spec where it is followed by KIND:), or --mu, a rate or a list.
func simServices(c *cli.Context) ([]analyze.Service, error) {
	if c.IsSet("mu") {
		if c.IsSet("service") {
			return nil, errors.New("--mu: give --mu or --service, not both")
		}
		rates, err := simRates(c.String("mu"), "mu")
		if err != nil {
			return nil, err
		}
		svcs := make([]analyze.Service, len(rates))
		for i, r := range rates {
			svcs[i] = analyze.Service{Kind: analyze.KindExp, Rate: r}
		}
		return svcs, nil
	}
	specs := splitSpecs(c.String("service"))
	if len(specs) > analyze.MaxClasses {
		return nil, fmt.Errorf("--service: %d specs, above the limit of %d classes", len(specs), analyze.MaxClasses)
	}
	var errs []error
	svcs := make([]analyze.Service, len(specs))
	for i, spec := range specs {
		var err error
		svcs[i], err = analyze.ParseService(spec)
		errs = append(errs, flagErr("service", err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return svcs, nil
}

// splitSpecs splits "exp:1,lognormal:2,0.5" into its specs: a comma
// followed by a piece without a colon belongs to the spec before it.
func splitSpecs(s string) []string {
	var specs []string
	for _, piece := range strings.Split(s, ",") {
		if n := len(specs); n > 0 && !strings.Contains(piece, ":") {
			specs[n-1] += "," + piece
			continue
		}
		specs = append(specs, piece)
	}
	return specs
}

// serviceFlag is the flag that gave the service: --mu or --service.
func serviceFlag(c *cli.Context) string {
	if c.IsSet("mu") {
		return "mu"
	}
	return "service"
}

// simPatience reads --theta or --patience into o.
func simPatience(c *cli.Context, o *analyze.SimOptions) error {
	switch {
	case c.IsSet("theta") && c.IsSet("patience"):
		return errors.New("--theta: give --theta or --patience, not both")
	case c.IsSet("theta"):
		theta := c.Float64("theta")
		if p := analyze.RateProblem(theta); p != "" {
			return fmt.Errorf("--theta: %s", p)
		}
		o.Patience = analyze.Service{Kind: analyze.KindExp, Rate: theta}
	case c.IsSet("patience"):
		p, err := analyze.ParsePatience(c.String("patience"))
		if err != nil {
			return flagErr("patience", err)
		}
		o.Patience = p
	}
	return nil
}
