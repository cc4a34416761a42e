package schedcmd

import (
	"context"
	"errors"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/sched"
)

// runArgs parses args (what follows "calq sched run", flags first) as
// calq does, reading stdin for "-", and returns the options the Action
// would run with, or its error. It runs no job.
func runArgs(t *testing.T, args []string, stdin string) (runOpts, error) {
	t.Helper()
	var got runOpts
	app := &cli.App{
		Name:           "calq",
		Reader:         strings.NewReader(stdin),
		Writer:         new(strings.Builder),
		ErrWriter:      new(strings.Builder),
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{{Name: "sched", Subcommands: []*cli.Command{
			newRunCommand(func(_ *cli.Context, o runOpts) error { got = o; return nil }),
		}}},
	}
	argv, after, dash := leafArgs(app.Commands[0].Subcommands[0], args)
	app.Metadata = map[string]any{}
	if dash {
		app.Metadata[base.MetaAfterDash] = after
	}
	err := app.RunContext(context.Background(), append([]string{"calq", "sched", "run"}, argv...))
	return got, err
}

// leafArgs does to args, whose flags come first, what app.Run does to a
// leaf command's arguments: a "--" between the flags and the positional
// arguments, and what followed the user's own "--" (as
// base.ArgsAfterDash reads it from the app's metadata).
func leafArgs(cmd *cli.Command, args []string) (argv, after []string, dash bool) {
	i := 0
	for i < len(args) && len(args[i]) > 1 && args[i][0] == '-' && args[i] != "--" {
		name, _, inline := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		i++
		for _, f := range cmd.Flags {
			if v, ok := f.(interface{ TakesValue() bool }); ok && v.TakesValue() && !inline && slices.Contains(f.Names(), name) {
				i++
			}
		}
	}
	argv = append(slices.Clone(args[:i]), "--")
	pos := args[i:]
	if j := slices.Index(pos, "--"); j >= 0 {
		after = slices.Clone(pos[j+1:])
		return append(append(argv, pos[:j]...), after...), after, true
	}
	return append(argv, pos...), nil, false
}

func TestRunOptions(t *testing.T) {
	for _, name := range []string{"CALQ_DB", "CALQ_METRICS_FILE"} {
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
	t.Setenv("XDG_STATE_HOME", "/state")
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		"jobs.txt":   "# nightly\necho one\n\n  echo two  \n",
		"more.txt":   "echo three\n",
		"bom.txt":    "\uFEFFecho bom\n",
		"blank.txt":  "\n# nothing\n   \n",
		"script.sh":  "#!/bin/sh\necho hi\n",
		"binary.bin": "ELF\x00\x01",
		"long.txt":   "echo short\necho " + strings.Repeat("x", 1<<17) + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir("dir", 0o755); err != nil {
		t.Fatal(err)
	}
	defaultDB := base.DefaultJournalPath()
	const pg = "postgres://calq@db.example/calq"

	tests := []struct {
		name  string
		args  []string
		stdin string
		env   map[string]string
		want  func(o *runOpts) // changes the defaults into what args give
		// wantErr is the whole message of the usage error args give.
		wantErr string
	}{
		{
			name: "defaults",
			args: []string{"jobs.txt"},
			want: func(o *runOpts) {},
		},
		{
			name: "jobs and a command after --",
			args: []string{"-j", "4", "--", "echo", "hi"},
			want: func(o *runOpts) { o.Workers = 4; o.Commands = []string{"echo hi"} },
		},
		{
			name: "words after -- quoted for sh",
			args: []string{"-j", "2", "--", "printf", "%s\n", "it's"},
			want: func(o *runOpts) { o.Workers = 2; o.Commands = []string{`printf '%s` + "\n" + `' 'it'\''s'`} },
		},
		{
			name: "one word after -- is a command line",
			args: []string{"--", "echo hi; echo there"},
			want: func(o *runOpts) { o.Commands = []string{"echo hi; echo there"} },
		},
		{
			name: "a flag-like word after -- is the command's",
			args: []string{"--", "--version"},
			want: func(o *runOpts) { o.Commands = []string{"--version"} },
		},
		{
			name: "job files in order",
			args: []string{"jobs.txt", "more.txt"},
			want: func(o *runOpts) { o.Commands = []string{"echo one", "echo two", "echo three"} },
		},
		{
			name:  "stdin without FILE",
			stdin: "echo in\n# skipped\necho out\n",
			want:  func(o *runOpts) { o.Commands = []string{"echo in", "echo out"} },
		},
		{
			name:  "stdin as - between files",
			args:  []string{"more.txt", "-", "more.txt"},
			stdin: "echo in\n",
			want:  func(o *runOpts) { o.Commands = []string{"echo three", "echo in", "echo three"} },
		},
		{
			name: "a byte order mark is dropped",
			args: []string{"bom.txt"},
			want: func(o *runOpts) { o.Commands = []string{"echo bom"} },
		},
		{
			name: "timeout, grace, retries, priority, shell",
			args: []string{"--timeout", "30s", "--grace=2s", "--retries", "0", "-p", "P0", "--shell", "sh", "more.txt"},
			want: func(o *runOpts) {
				o.Timeout, o.Grace, o.Retries, o.Class, o.Shell = 30*time.Second, 2*time.Second, 0, sched.ClassOf(0), "sh"
				o.Commands = []string{"echo three"}
			},
		},
		{
			name: "priority by name",
			args: []string{"--priority", "background", "more.txt"},
			want: func(o *runOpts) { o.Class = sched.ClassOf(3); o.Commands = []string{"echo three"} },
		},
		{
			name: "journal with a label and --force",
			args: []string{"--journal", "--label", "nightly", "--force", "--db", "j.db", "jobs.txt"},
			want: func(o *runOpts) { o.UseJournal, o.Label, o.Force, o.DB = true, "nightly", true, "j.db" },
		},
		{
			name: "journal from CALQ_DB",
			args: []string{"--journal", "jobs.txt"},
			env:  map[string]string{"CALQ_DB": "env.db"},
			want: func(o *runOpts) { o.UseJournal, o.DB = true, "env.db" },
		},
		{
			name: "shared queue: -j 0 only submits",
			args: []string{"-j", "0", "--db", pg, "jobs.txt"},
			want: func(o *runOpts) { o.Workers, o.DB, o.Shared = 0, pg, true },
		},
		{
			name: "shared queue: label and --force need no --journal",
			args: []string{"--db", pg, "--label", "nightly", "--force", "--shell", "/no/such/shell", "jobs.txt"},
			want: func(o *runOpts) {
				o.DB, o.Shared, o.Label, o.Force, o.Shell = pg, true, "nightly", true, "/no/such/shell"
			},
		},
		{
			name: "metrics file",
			args: []string{"--metrics-file", "m.prom", "jobs.txt"},
			want: func(o *runOpts) { o.MetricsFile = "m.prom" },
		},
		{
			name: "metrics file from CALQ_METRICS_FILE",
			args: []string{"jobs.txt"},
			env:  map[string]string{"CALQ_METRICS_FILE": "env.prom"},
			want: func(o *runOpts) { o.MetricsFile = "env.prom" },
		},
		{
			name: "json and quiet",
			args: []string{"--json", "-q", "jobs.txt"},
			want: func(o *runOpts) { o.JSON, o.Quiet = true, true },
		},
		{
			name: "at an RFC 3339 time",
			args: []string{"--at", "2030-01-02T15:04:05Z", "jobs.txt"},
			want: func(o *runOpts) { o.At = time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC) },
		},

		{
			name:    "-j 0 without the shared queue",
			args:    []string{"-j", "0", "--", "true"},
			wantErr: "--jobs: 0, want at least 1 (0, only submitting, needs a postgres:// --db)",
		},
		{
			name:    "-j -1 with the shared queue",
			args:    []string{"-j", "-1", "--db", pg, "--", "true"},
			wantErr: "--jobs: -1, want at least 1 (0, only submitting, needs a postgres:// --db)",
		},
		{
			name:    "negative retries",
			args:    []string{"--retries", "-1", "--", "true"},
			wantErr: "--retries: -1 is negative",
		},
		{
			name:    "negative timeout",
			args:    []string{"--timeout", "-1s", "--", "true"},
			wantErr: "--timeout and --grace must not be negative",
		},
		{
			name:    "unknown priority",
			args:    []string{"-p", "P9", "--", "true"},
			wantErr: `--priority: priority "P9": want P0..P3 (or realtime, interactive, normal, background)`,
		},
		{
			name:    "bad --at",
			args:    []string{"--at", "soon", "--", "true"},
			wantErr: `--at: "soon": want 15:04, '2006-01-02 15:04', RFC 3339 or +10m`,
		},
		{
			name:    "label without the journal",
			args:    []string{"--label", "x", "--", "true"},
			wantErr: "--label: only with --journal (the label names the batch in the journal)",
		},
		{
			name:    "force without the journal",
			args:    []string{"--force", "--", "true"},
			wantErr: "--force: only with --journal or a postgres:// --db (without a record every line runs anyway)",
		},
		{
			name:    "every flag error at once, before the jobs are read",
			args:    []string{"-j", "0", "--retries", "-2", "--grace", "-1s", "missing.txt"},
			wantErr: "--jobs: 0, want at least 1 (0, only submitting, needs a postgres:// --db)\n--retries: -2 is negative\n--timeout and --grace must not be negative",
		},
		{
			name:    "no such shell",
			args:    []string{"--shell", "/no/such/shell", "--", "true"},
			wantErr: "--shell /no/such/shell: no such program",
		},
		{
			name:    "metrics file in no directory",
			args:    []string{"--metrics-file", "no/such/m.prom", "--", "true"},
			wantErr: "--metrics-file no/such/m.prom: no directory no/such to write it in",
		},
		{
			name:    "metrics file with the shared queue",
			args:    []string{"--db", pg, "--metrics-file", "m.prom", "--", "true"},
			wantErr: "--metrics-file: not with a postgres:// --db (the workers run the jobs)",
		},
		{
			name:    "a bad job file is told before --metrics-file with the shared queue",
			args:    []string{"--db", pg, "--metrics-file", "m.prom", "missing.txt"},
			wantErr: "job file missing.txt: no such file or directory",
		},
		{
			name:    "nothing after --",
			args:    []string{"-j", "2", "--"},
			wantErr: "--: no COMMAND after it",
		},
		{
			name:    "files and -- both",
			args:    []string{"jobs.txt", "--", "echo", "hi"},
			wantErr: "give job files or -- COMMAND, not both (jobs.txt before --)",
		},
		{
			name:    "an empty command after --",
			args:    []string{"--", "", " "},
			wantErr: "--: the COMMAND is empty",
		},
		{
			name:    "a command line too long",
			args:    []string{"--", strings.Repeat("x", 1<<20)},
			wantErr: "--: the command line: longer than 131007 bytes, the most a shell can be given (Linux's MAX_ARG_STRLEN, 128 KiB)",
		},
		{
			name:    "a job file with a line too long",
			args:    []string{"long.txt"},
			wantErr: "job file long.txt: line 2: longer than 131007 bytes, the most a shell can be given (Linux's MAX_ARG_STRLEN, 128 KiB)",
		},
		{
			name:    "missing and unreadable job files, all named",
			args:    []string{"missing.txt", "dir", "script.sh", "binary.bin"},
			wantErr: "job file missing.txt: no such file or directory\njob file dir: is a directory\njob file script.sh: is a script (#!), not a list of command lines; to run it as one job: calq sched run -- script.sh\njob file binary.bin: not a text file of command lines",
		},
		{
			name:    "stdin twice",
			args:    []string{"-", "-"},
			stdin:   "echo in\n",
			wantErr: "-: standard input given twice",
		},
		{
			name:    "only blank lines and comments",
			args:    []string{"blank.txt"},
			wantErr: "no commands to run (the input has only blank lines or comments)",
		},
		{
			name:    "empty stdin",
			wantErr: "no commands to run (the input has only blank lines or comments)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			got, err := runArgs(t, tt.args, tt.stdin)
			if tt.wantErr != "" {
				checkUsageError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			want := runOpts{DB: defaultDB}
			want.Workers, want.Class, want.Retries, want.Grace, want.Shell = runtime.NumCPU(), sched.ClassOf(2), sched.DefaultRetries, 5*time.Second, "/bin/sh"
			want.Commands = []string{"echo one", "echo two"}
			tt.want(&want)
			compareRunOpts(t, got, want)
		})
	}
}

// TestRunOptionsAtRelative checks --at +DURATION against the clock, which
// runOptions reads.
func TestRunOptionsAtRelative(t *testing.T) {
	before := time.Now()
	got, err := runArgs(t, []string{"--at", "+10m", "--", "true"}, "")
	after := time.Now()
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	if got.At.Before(before.Add(10*time.Minute)) || got.At.After(after.Add(10*time.Minute)) {
		t.Errorf("got At %v, want 10m after %v", got.At, before)
	}
}

// checkUsageError checks that err is the usage error of calq sched run
// with the message want.
func checkUsageError(t *testing.T, err error, want string) {
	t.Helper()
	var ue *base.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("got error %#v, want a usage error %q", err, want)
	}
	if got := ue.Error(); got != want {
		t.Errorf("got error %q, want %q", got, want)
	}
	if got, wantHint := ue.Hint(), "run 'calq sched run --help' for usage"; got != wantHint {
		t.Errorf("got hint %q, want %q", got, wantHint)
	}
}

// compareRunOpts compares got with want field by field. Env, Warn and
// Metrics are compared by presence (Env is calq's environment less its
// secrets, Metrics is there with a --metrics-file); the engine's hooks
// (Events, Output, Journal, Clock) must not be set yet.
func compareRunOpts(t *testing.T, got, want runOpts) {
	t.Helper()
	if got.Env == nil {
		t.Errorf("got Env nil, want the environment")
	}
	if got.Warn == nil {
		t.Errorf("got Warn nil, want a warning printer")
	}
	if (got.Metrics != nil) != (want.MetricsFile != "") {
		t.Errorf("got Metrics %v with MetricsFile %q, want metrics just with a file", got.Metrics, got.MetricsFile)
	}
	if got.Events != nil || got.Output != nil || got.Journal != nil || got.Clock != nil {
		t.Errorf("got Events, Output, Journal or Clock set, want them left to the run")
	}
	got.Env, got.Warn, got.Metrics = nil, nil, nil
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for _, v := range []struct{ g, w reflect.Value }{{g, w}, {g.Field(0), w.Field(0)}} {
		for i := range v.g.NumField() {
			f := v.g.Type().Field(i)
			if f.Anonymous || f.Type.Kind() == reflect.Func {
				continue
			}
			if gf, wf := v.g.Field(i).Interface(), v.w.Field(i).Interface(); !reflect.DeepEqual(gf, wf) {
				t.Errorf("got %s %#v, want %#v", f.Name, gf, wf)
			}
		}
	}
}
