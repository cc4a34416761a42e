package analyzecmd

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"calq/analyze"
)

// parseSim runs simulate's flag reading on args, without simulating.
func parseSim(t *testing.T, args ...string) (analyze.SimOptions, error) {
	t.Helper()
	var o analyze.SimOptions
	var err error
	cmd := simulateCommand()
	cmd.Action = func(c *cli.Context) error {
		o, err = simOptions(c)
		return nil
	}
	app := &cli.App{Name: "calq", Commands: []*cli.Command{cmd}, Writer: io.Discard, ErrWriter: io.Discard}
	if runErr := app.Run(append([]string{"calq", "simulate"}, args...)); runErr != nil {
		t.Fatalf("calq simulate %s: %v", strings.Join(args, " "), runErr)
	}
	return o, err
}

// TestSimModelFlags: the flags of abandonment and priority classes, from
// argument lines to the options they give.
func TestSimModelFlags(t *testing.T) {
	exp := func(r float64) analyze.Service { return analyze.Service{Kind: analyze.KindExp, Rate: r} }
	logn := analyze.Service{Kind: analyze.KindLognormal, Mean: 1, CV: 0.5}
	tests := []struct {
		name       string
		args       []string
		arrivals   analyze.Arrivals
		service    analyze.Service
		patience   analyze.Service
		classes    []analyze.SimClass
		preemptive bool
	}{
		{"one rate", []string{"-l", "0.5"}, analyze.Arrivals{Kind: analyze.KindExp, Rate: 0.5}, exp(1), analyze.Service{}, nil, false},
		{"theta", []string{"--theta", "0.2"}, analyze.Arrivals{Kind: analyze.KindExp, Rate: 1}, exp(1), exp(0.2), nil, false},
		{"patience", []string{"--patience", "lognormal:1,0.5"}, analyze.Arrivals{Kind: analyze.KindExp, Rate: 1}, exp(1), logn, nil, false},
		{"classes, one mu", []string{"-l", "0.1, 0.2", "-m", "2"}, analyze.Arrivals{}, analyze.Service{}, analyze.Service{},
			[]analyze.SimClass{{Rate: 0.1, Service: exp(2)}, {Rate: 0.2, Service: exp(2)}}, false},
		{"classes, mu each", []string{"-l", "0.1,0.2", "-m", "2,3", "--preemptive"}, analyze.Arrivals{}, analyze.Service{}, analyze.Service{},
			[]analyze.SimClass{{Rate: 0.1, Service: exp(2)}, {Rate: 0.2, Service: exp(3)}}, true},
		{"classes, services", []string{"-l", "0.1,0.2", "--service", "lognormal:1,0.5,exp:3"}, analyze.Arrivals{}, analyze.Service{}, analyze.Service{},
			[]analyze.SimClass{{Rate: 0.1, Service: logn}, {Rate: 0.2, Service: exp(3)}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseSim(t, tt.args...)
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if !reflect.DeepEqual(o.Arrivals, tt.arrivals) || o.Service != tt.service || o.Patience != tt.patience ||
				!reflect.DeepEqual(o.Classes, tt.classes) || o.Preemptive != tt.preemptive {
				t.Errorf("got arrivals %+v, service %+v, patience %+v, classes %+v, preemptive %v;\n"+
					"want %+v, %+v, %+v, %+v, %v", o.Arrivals, o.Service, o.Patience, o.Classes, o.Preemptive,
					tt.arrivals, tt.service, tt.patience, tt.classes, tt.preemptive)
			}
		})
	}
}

// TestSplitSpecs: a comma starts a new spec only before KIND:.
func TestSplitSpecs(t *testing.T) {
	for in, want := range map[string][]string{
		"exp:1":                         {"exp:1"},
		"lognormal:1,0.5":               {"lognormal:1,0.5"},
		"exp:1,const:2":                 {"exp:1", "const:2"},
		"lognormal:1,0.5,lognormal:2,1": {"lognormal:1,0.5", "lognormal:2,1"},
		"bogus,exp:1":                   {"bogus", "exp:1"},
	} {
		if got := splitSpecs(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitSpecs(%q) = %q, want %q", in, got, want)
		}
	}
}
