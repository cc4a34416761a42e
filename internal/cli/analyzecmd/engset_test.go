package analyzecmd

import (
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"calq/analyze"
)

// parseEngset runs engset's flag reading on args.
func parseEngset(t *testing.T, args ...string) (analyze.EngsetOptions, error) {
	t.Helper()
	cmd := engsetCommand()
	var o analyze.EngsetOptions
	var perr error
	cmd.Action = func(c *cli.Context) error {
		o, perr = engsetOptions(c)
		return nil
	}
	app := &cli.App{Commands: []*cli.Command{cmd}, Writer: io.Discard, ErrWriter: io.Discard}
	if err := app.Run(append([]string{"calq", "engset"}, args...)); err != nil {
		t.Fatalf("calq engset %s: %v", strings.Join(args, " "), err)
	}
	return o, perr
}

func TestEngsetFlags(t *testing.T) {
	for _, tt := range []struct {
		name string
		args string
		want analyze.EngsetOptions
		err  string // each line must appear in the error
	}{
		{"blocking", "--sources 10 --alpha 0.5 -m 2 -c 3 --blocking",
			analyze.EngsetOptions{Sources: 10, Alpha: 0.5, Mu: 2, Servers: 3, Variant: analyze.EngsetBlocking}, ""},
		{"delay, K by default N", "-N 10 --alpha 0.5 --mu 2 --servers 3 --delay",
			analyze.EngsetOptions{Sources: 10, Alpha: 0.5, Mu: 2, Servers: 3, Variant: analyze.EngsetDelay}, ""},
		{"delay with K", "-N 10 --alpha 0.5 -m 2 -c 3 --delay -K 5",
			analyze.EngsetOptions{Sources: 10, Alpha: 0.5, Mu: 2, Servers: 3, Variant: analyze.EngsetDelay, Capacity: 5}, ""},
		{"more servers than sources", "-N 2 --alpha 1 -m 1 -c 5 --delay -K 2",
			analyze.EngsetOptions{Sources: 2, Alpha: 1, Mu: 1, Servers: 5, Variant: analyze.EngsetDelay, Capacity: 2}, ""},
		{"no variant", "-N 10 --alpha 1 -m 1 -c 2", analyze.EngsetOptions{}, "--delay: required"},
		{"both variants", "-N 10 --alpha 1 -m 1 -c 2 --blocking --delay", analyze.EngsetOptions{}, "--blocking: give one"},
		{"K with blocking", "-N 10 --alpha 1 -m 1 -c 2 --blocking -K 3", analyze.EngsetOptions{}, "--capacity: only with --delay"},
		{"K below c", "-N 10 --alpha 1 -m 1 -c 3 --delay -K 2", analyze.EngsetOptions{}, "--capacity: 2 is below the 3 servers"},
		{"K above N", "-N 10 --alpha 1 -m 1 -c 3 --delay -K 11", analyze.EngsetOptions{}, "--capacity: 11 is above the limit of the 10 sources"},
		{"all missing", "--delay", analyze.EngsetOptions{},
			"--sources: required\n--alpha: required\n--mu: required\n--servers: required"},
		{"load", "-N 10 --alpha 1e10 -m 1e-10 -c 3 --delay", analyze.EngsetOptions{}, "--alpha: the load of an idle source"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseEngset(t, strings.Fields(tt.args)...)
			if tt.err != "" {
				for _, want := range strings.Split(tt.err, "\n") {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("error %v, want one saying %q", err, want)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
