package schedbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"calq/internal/childenv"
	"calq/sched/shell"
)

// RunnerOptions configure RunRunner.
type RunnerOptions struct {
	Calq     string // calq's executable
	Jobs     int    // trivial jobs per pass; default 300
	Parallel int    // jobs at once (-j, -P); default 2
	Passes   int    // the best of this many passes counts; default 3
	Dir      string // for the job file
	Command  string // each job's command line; default "true"
}

// RunnerRow is one job runner's best pass.
type RunnerRow struct {
	Runner   string  `json:"runner"` // "calq", "xargs", "parallel"
	Command  string  `json:"command"`
	Jobs     int     `json:"jobs"`
	Seconds  float64 `json:"seconds"`
	MsPerJob float64 `json:"ms_per_job"`
	// Ratio is this runner's time per job over calq's: above 1 means calq
	// is faster.
	Ratio float64 `json:"ratio"`
}

// RunRunner times Jobs trivial command lines through `calq sched run`,
// through `xargs -P` running each line with sh -c, and through GNU
// parallel when it is installed, each end to end as a shell would run it,
// best of Passes, interleaved so that a noisy moment hits all alike.
func RunRunner(ctx context.Context, o RunnerOptions) ([]RunnerRow, error) {
	o.Jobs, o.Parallel, o.Passes = cmp.Or(o.Jobs, 300), cmp.Or(o.Parallel, 2), cmp.Or(o.Passes, 3)
	if o.Command == "" {
		o.Command = "true"
	}
	if o.Jobs < 1 || o.Parallel < 1 || o.Passes < 1 {
		return nil, fmt.Errorf("runner bench: %w: jobs, parallel and passes must be at least 1", ErrOptions)
	}
	file := filepath.Join(o.Dir, "jobs.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat(o.Command+"\n", o.Jobs)), 0o644); err != nil {
		return nil, fmt.Errorf("runner bench: %w", err)
	}
	p := strconv.Itoa(o.Parallel)
	runners := []struct {
		name string
		argv []string
	}{
		{"calq", []string{o.Calq, "sched", "run", "-j", p, file}},
		{"xargs", []string{"xargs", "-P", p, "-d", `\n`, "-n", "1", "-a", file, "sh", "-c"}},
	}
	if path, err := exec.LookPath("parallel"); err == nil {
		runners = append(runners, struct {
			name string
			argv []string
		}{"parallel", []string{path, "--will-cite", "-j", p, "-a", file}})
	}
	best := make([]time.Duration, len(runners))
	for range o.Passes {
		for i, r := range runners {
			d, err := timeRun(ctx, r.argv)
			if err != nil {
				return nil, fmt.Errorf("runner bench: %s: %w", r.name, err)
			}
			if best[i] == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	rows := make([]RunnerRow, len(runners))
	for i, r := range runners {
		rows[i] = RunnerRow{Runner: r.name, Command: shell.Join(r.argv), Jobs: o.Jobs,
			Seconds: best[i].Seconds(), MsPerJob: best[i].Seconds() * 1000 / float64(o.Jobs),
			Ratio: best[i].Seconds() / best[0].Seconds()}
	}
	return rows, nil
}

// timeRun runs argv with its output discarded and returns how long it took.
func timeRun(ctx context.Context, argv []string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = childenv.Without(os.Environ()) // like every child of calq's: none of its secrets
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%w: %s", err, msg[strings.LastIndexByte(msg, '\n')+1:])
		}
		return 0, errors.Join(err, ctx.Err())
	}
	return d, nil
}
