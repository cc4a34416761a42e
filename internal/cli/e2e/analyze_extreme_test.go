package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"calq/analyze"
	"calq/internal/cli/app"
)

// The calculators on extreme inputs (issues 22 and 23): each flag of each
// calq analyze subcommand, set to each extreme value with the others sane.

// analyzeFloats are the extreme values of a float flag; analyzeHuge those
// whose usage error must name the limit they pass, on a flag of
// analyzeLimited.
var (
	analyzeFloats = []string{"0", "-1", "NaN", "Inf", "-Inf", "1e308", "-1e308", "1e-308", "5e-324",
		"1e100", "1e-100", "1e6"}
	analyzeInts = []string{"0", "-1", "9223372036854775807", "-9223372036854775808", "2147483648",
		"10000001", "1e9"}
	analyzeDurations = []string{"0s", "-1s", "1ns", "2562047h"}
	analyzeHuge      = map[string]bool{"Inf": true, "1e308": true, "9223372036854775807": true, "2147483648": true}
	analyzeLimited   = map[string]bool{"lambda": true, "mu": true, "load": true, "t": true, "calls": true,
		"servers": true, "capacity": true, "customers": true, "replications": true, "buckets": true,
		"from": true, "to": true}
)

// analyzeCase is one command line of calq analyze with the flags to vary:
// each gets every value of its list; spec flags fill a template.
type analyzeCase struct {
	name   string
	base   []string
	values map[string][]string // flag → values
	spec   map[string]string   // flag → template with %s
}

func analyzeCases() []analyzeCase {
	rates := func(names ...string) map[string][]string {
		m := map[string][]string{}
		for _, n := range names {
			m[n] = analyzeFloats
		}
		return m
	}
	with := func(m map[string][]string, vals []string, names ...string) map[string][]string {
		for _, n := range names {
			m[n] = vals
		}
		return m
	}
	return []analyzeCase{
		{name: "mmc", base: []string{"mmc", "--lambda", "2", "--mu", "1", "--servers", "3", "--t", "1"},
			values: with(rates("lambda", "mu", "t"), analyzeInts, "servers")},
		{name: "mmck", base: []string{"mmck", "--lambda", "2", "--mu", "1", "--servers", "2", "--capacity", "5"},
			values: with(rates("lambda", "mu"), analyzeInts, "servers", "capacity")},
		{name: "mm1n", base: []string{"mm1n", "--lambda", "1", "--mu", "1", "--capacity", "10"},
			values: with(rates("lambda", "mu"), analyzeInts, "capacity")},
		{name: "erlang b", base: []string{"erlang", "b", "--servers", "10", "--load", "8"},
			values: with(rates("load"), analyzeInts, "servers")},
		{name: "erlang c", base: []string{"erlang", "c", "--servers", "10", "--load", "8"},
			values: with(rates("load"), analyzeInts, "servers")},
		{name: "size p-wait", base: []string{"size", "--lambda", "4", "--mu", "1", "--max-p-wait", "0.2"},
			values: rates("lambda", "mu", "max-p-wait")},
		{name: "size wq", base: []string{"size", "--lambda", "4", "--mu", "1", "--max-wq", "0.5"},
			values: rates("max-wq")},
		{name: "size service level", base: []string{"size", "--lambda", "4", "--mu", "1", "--service-level", "0.8", "--within", "0.1"},
			values: rates("service-level", "within")},
		{name: "size call centre", base: []string{"size", "--calls", "300", "--interval", "30m", "--aht", "180s", "--max-p-wait", "0.2"},
			values: with(rates("calls"), analyzeDurations, "interval", "aht")},
		{name: "poisson", base: []string{"poisson", "--lambda", "2", "--t", "1.5"},
			values: with(rates("lambda", "t"), analyzeInts, "from", "to")},
		{name: "resize", base: []string{"resize", "--lambda", "1.2", "--mu", "1", "--capacity", "1000", "--buckets", "64", "--events", "100"},
			values: with(rates("lambda", "mu"), analyzeInts, "capacity", "buckets", "events")},
		{name: "simulate", base: []string{"simulate", "--lambda", "0.8", "--mu", "1", "--servers", "2", "--customers", "1000", "--replications", "2"},
			values: with(rates("lambda", "mu"), analyzeInts, "servers", "capacity", "customers", "warmup", "replications", "seed")},
		{name: "simulate specs", base: []string{"simulate", "--servers", "2", "--customers", "1000", "--replications", "2"},
			spec: map[string]string{"arrivals": "exp:%s", "service": "lognormal:1,%s"}},
		{name: "simulate more specs", base: []string{"simulate", "--servers", "2", "--replications", "2"},
			spec: map[string]string{"arrivals": "uniform:100/%s", "service": "const:%s"}},
		{name: "simulate lognormal mean", base: []string{"simulate", "--servers", "2", "--customers", "1000", "--replications", "2"},
			spec: map[string]string{"service": "lognormal:%s,1"}},
		{name: "engset blocking", base: []string{"engset", "--sources", "10", "--alpha", "0.5", "--mu", "1", "--servers", "3", "--blocking"},
			values: with(rates("alpha", "mu"), analyzeInts, "sources", "servers")},
		{name: "engset delay", base: []string{"engset", "--sources", "10", "--alpha", "0.5", "--mu", "1", "--servers", "3", "--delay"},
			values: with(rates("alpha", "mu"), analyzeInts, "sources", "servers", "capacity")},
		{name: "mminf", base: []string{"mminf", "--lambda", "3", "--mu", "0.5", "--n", "4"},
			values: with(rates("lambda", "mu", "p"), analyzeInts, "n")},
		{name: "simulate abandonment", base: []string{"simulate", "--lambda", "0.8", "--mu", "1", "--theta", "0.5", "--customers", "1000", "--replications", "2"},
			values: rates("theta")},
		{name: "simulate patience", base: []string{"simulate", "--lambda", "1.5", "--customers", "1000", "--replications", "2"},
			spec: map[string]string{"patience": "lognormal:%s,1"}},
		{name: "simulate classes", base: []string{"simulate", "--lambda", "0.3,0.4", "--servers", "2", "--customers", "1000", "--replications", "2", "--preemptive"},
			spec: map[string]string{"lambda": "0.3,%s", "mu": "1,%s"}},
		{name: "history", base: []string{"history", "--max-wq", "1", "--confidence", "0.9"},
			values: rates("max-wq", "confidence")},
	}
}

// setFlag returns args with --flag set to value, replacing its value if
// args has it.
func setFlag(args []string, flag, value string) []string {
	out := slices.Clone(args)
	if i := slices.Index(out, "--"+flag); i >= 0 {
		out[i+1] = value
		return out
	}
	return append(out, "--"+flag, value)
}

// runAnalyze runs calq analyze with args in this process, turning a
// panic into an error.
func runAnalyze(ctx context.Context, args []string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		err = app.Run(ctx, append([]string{"calq", "analyze"}, args...), &out, &errOut)
	}()
	return out.String(), errOut.String(), err
}

// TestAnalyzeExtremes: every flag of every calculator at every extreme
// value gives a result whose --json holds only finite numbers (or exit 1
// for an unstable queue, reported after its result), or a usage error
// that names the flag (and the limit, for a value past one), and returns
// well within a minute (the calculators bound their work, checked before
// it starts). history has no journal here: past its flags it fails with
// "no journal".
func TestAnalyzeExtremes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	for _, tc := range analyzeCases() {
		flags := map[string][]string{}
		for f, vals := range tc.values {
			flags[f] = vals
		}
		for f := range tc.spec {
			flags[f] = analyzeFloats
		}
		for flag, vals := range flags {
			for _, v := range vals {
				arg := v
				if tmpl, ok := tc.spec[flag]; ok {
					arg = fmt.Sprintf(tmpl, v)
				}
				args := append(setFlag(tc.base, flag, arg), "--json")
				if tc.name == "history" {
					args = append(args, "--db", db)
				}
				t.Run(tc.name+"/"+flag+"="+arg, func(t *testing.T) {
					checkAnalyzeRun(t, args, flag, analyzeHuge[v] && analyzeLimited[flag])
				})
			}
		}
	}
}

// checkAnalyzeRun runs args and judges the outcome; a usage error must
// name flag (or, for a rate, the flag of the offered load it makes) and,
// if huge, say "limit".
func checkAnalyzeRun(t *testing.T, args []string, flag string, huge bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	stdout, _, err := runAnalyze(ctx, args)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("calq analyze %s: still running after a minute", strings.Join(args, " "))
	}
	msg := fmt.Sprint(err)
	switch code := app.ExitCode(err); code {
	case exitUsage:
		named := strings.Contains(msg, "-"+flag) || strings.Contains(msg, "--lambda") && (flag == "mu" || flag == "load")
		if !named {
			t.Errorf("calq analyze %s: usage error %q does not name --%s", strings.Join(args, " "), msg, flag)
		}
		if huge && !strings.Contains(msg, "limit") && !strings.Contains(msg, "parse") {
			t.Errorf("calq analyze %s: usage error %q does not name the limit", strings.Join(args, " "), msg)
		}
		if stdout != "" {
			t.Errorf("calq analyze %s: a usage error, and output:\n%s", strings.Join(args, " "), stdout)
		}
		return
	case exitOK, exitFailure:
		if code == exitFailure && !strings.Contains(msg, "unstable") && !strings.Contains(msg, "no journal") {
			t.Fatalf("calq analyze %s: exit 1: %s", strings.Join(args, " "), msg)
		}
	default:
		t.Fatalf("calq analyze %s: exit %d: %s", strings.Join(args, " "), code, msg)
	}
	if strings.Contains(msg, "no journal") {
		return
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || v["message_type"] == nil {
		t.Errorf("calq analyze %s: not one JSON object with a message_type (%v):\n%s", strings.Join(args, " "), err, stdout)
	}
}

// TestAnalyzeSignals: SIGINT and SIGTERM stop calq analyze in the middle
// of the largest simulation it allows (10^9 customers, minutes of work),
// with exit status 130.
func TestAnalyzeSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := calqCmd(t, "analyze", "simulate", "--progress", "--customers", strconv.Itoa(analyze.MaxCustomers),
				"--replications", strconv.Itoa(analyze.MaxSimulated/analyze.MaxCustomers))
			stderr := saidLine(t, cmd, "calq: analyze simulate: replication 1 of ")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			// calq is another process: wait until it says the run is under
			// way, which it says after it has asked for the signals.
			select {
			case <-stderr.said:
			case <-done:
				t.Fatalf("calq analyze simulate ended before its first replication:\n%s", stderr)
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				<-done
				t.Fatalf("calq analyze simulate did not start its first replication in 2 minutes:\n%s", stderr)
			}
			cmd.Process.Signal(sig)
			select {
			case <-done:
			case <-time.After(time.Minute): // the run has minutes left
				cmd.Process.Kill()
				<-done
				t.Fatalf("calq analyze simulate ignored %v:\n%s", sig, stderr)
			}
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Errorf("exit status %d, want %d (interrupted)\n%s", code, exitInterrupted, stderr)
			}
			if !strings.Contains(stderr.String(), "canceled") {
				t.Errorf("stderr does not say it was cancelled:\n%s", stderr)
			}
		})
	}
}
