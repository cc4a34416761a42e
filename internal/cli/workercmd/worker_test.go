package workercmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"calq/convert/lo"
	"calq/internal/cli/base"
	"calq/sched/pgqueue"
)

// workerArgs parses args (what follows "calq worker") as calq does and
// returns the options the Action would run with, or its error. It opens
// no queue.
func workerArgs(t *testing.T, args []string) (workerOpts, error) {
	t.Helper()
	var (
		got workerOpts
		ran bool
	)
	app := &cli.App{
		Name:           "calq",
		Writer:         new(strings.Builder),
		ErrWriter:      new(strings.Builder),
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{
			newCommand(func(_ *cli.Context, o workerOpts) error { got, ran = o, true; return nil }),
		},
	}
	err := app.RunContext(context.Background(), append([]string{"calq", "worker"}, args...))
	if err == nil && !ran {
		t.Fatalf("calq worker %q: no error, and the run was not called", args)
	}
	return got, err
}

func TestWorkerOptions(t *testing.T) {
	t.Setenv("CALQ_DB", "")
	os.Unsetenv("CALQ_DB")
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const pg = "postgres://calq@db.example/calq"
	converts := []string{"convert-html", "convert-image", "convert-office", "convert-pdf"}

	tests := []struct {
		name string
		args []string
		env  map[string]string
		want func(o *workerOpts) // changes the defaults into what args give
		// wantErr is the whole message of the usage error args give.
		wantErr string
	}{
		{
			name: "defaults: convert's kinds",
			args: []string{"--db", pg},
			want: func(o *workerOpts) {},
		},
		{
			name: "a key=value address",
			args: []string{"--db", "host=db.example dbname=calq"},
			want: func(o *workerOpts) { o.DB = "host=db.example dbname=calq" },
		},
		{
			name: "the address from CALQ_DB",
			env:  map[string]string{"CALQ_DB": pg},
			want: func(o *workerOpts) {},
		},
		{
			name: "kinds sorted, spaces trimmed",
			args: []string{"--db", pg, "--kinds", "sms, shell ,convert-pdf"},
			want: func(o *workerOpts) { o.Kinds = []string{"convert-pdf", "shell", "sms"} },
		},
		{
			name: "convert and one of its kinds, once each",
			args: []string{"--db", pg, "--kinds", "convert-pdf,convert,shell"},
			want: func(o *workerOpts) { o.Kinds = append(converts[:4:4], "shell") },
		},
		{
			name: "name, jobs, lease, grace, instances, state dir",
			args: []string{"--db", pg, "--name", "host-1", "-j", "3", "--lease", "1s", "--grace=1s", "--instances", "2", "--state-dir", "/st"},
			want: func(o *workerOpts) {
				o.Name, o.Jobs, o.Lease, o.Grace, o.Instances, o.StateDir = "host-1", 3, time.Second, time.Second, 2, "/st"
			},
		},
		{
			name: "json and quiet",
			args: []string{"--db", pg, "--json", "-q"},
			want: func(o *workerOpts) { o.JSON, o.Quiet = true, true },
		},
		{
			name: "shared root",
			args: []string{"--db", pg, "--shared-root", dir},
			want: func(o *workerOpts) { o.SharedRoot = dir },
		},
		{
			name: "status checks neither kinds, name nor jobs",
			args: []string{"--db", pg, "--status", "--kinds", "bogus", "--name", "a b", "-j", "0"},
			want: func(o *workerOpts) { o.Status, o.Kinds, o.Name, o.Jobs = true, nil, "a b", 0 },
		},

		{
			name:    "no --db",
			wantErr: "--db: give the shared queue's postgres:// URL (or set CALQ_DB)",
		},
		{
			name:    "a journal file",
			args:    []string{"--db", "file.db"},
			wantErr: "--db file.db: calq worker needs a PostgreSQL address (postgres://... or host=... dbname=...); a journal file is not shared between machines",
		},
		{
			name:    "a journal file from CALQ_DB, quoted",
			env:     map[string]string{"CALQ_DB": "my file.db"},
			wantErr: "--db 'my file.db': calq worker needs a PostgreSQL address (postgres://... or host=... dbname=...); a journal file is not shared between machines",
		},
		// In calq, app's noArgs refuses an argument before this Action
		// runs; the Action's own check quotes it for a shell.
		{
			name:    "an argument",
			args:    []string{"--db", pg, "extra"},
			wantErr: "unexpected argument extra",
		},
		{
			name:    "an argument, quoted, before --db is looked at",
			args:    []string{"a b"},
			wantErr: "unexpected argument 'a b'",
		},
		{
			name:    "shared root a file",
			args:    []string{"--db", pg, "--shared-root", file},
			wantErr: "--shared-root " + file + ": not a directory",
		},
		{
			name:    "shared root missing",
			args:    []string{"--db", pg, "--shared-root", filepath.Join(dir, "missing")},
			wantErr: "--shared-root " + filepath.Join(dir, "missing") + ": not a directory",
		},
		{
			name:    "lease under a second",
			args:    []string{"--db", pg, "--lease", "1ms"},
			wantErr: "--lease 1ms: want at least 1s",
		},
		{
			name:    "lease under a second, with --status too",
			args:    []string{"--db", pg, "--status", "--lease", "999ms"},
			wantErr: "--lease 999ms: want at least 1s",
		},
		{
			name:    "unknown kind",
			args:    []string{"--db", pg, "--kinds", "bogus"},
			wantErr: `--kinds: unknown kind "bogus" (want convert, convert-office, convert-image, convert-pdf, convert-html, sms, shell)`,
		},
		{
			name:    "an empty kind",
			args:    []string{"--db", pg, "--kinds", "convert,"},
			wantErr: `--kinds: unknown kind "" (want convert, convert-office, convert-image, convert-pdf, convert-html, sms, shell)`,
		},
		{
			name:    "a name with a space",
			args:    []string{"--db", pg, "--name", "a b"},
			wantErr: `--name "a b": want a name without spaces`,
		},
		{
			name:    "an empty name",
			args:    []string{"--db", pg, "--name", ""},
			wantErr: `--name "": want a name without spaces`,
		},
		{
			name:    "a name not UTF-8",
			args:    []string{"--db", pg, "--name", "a\xffb"},
			wantErr: `--name "a\xffb": byte 0xff at offset 1 is not UTF-8, and a name is stored as text`,
		},
		{
			name:    "no jobs",
			args:    []string{"--db", pg, "--jobs", "0"},
			wantErr: "--jobs: 0, want at least 1",
		},
		{
			name:    "the address before the lease",
			args:    []string{"--db", "file.db", "--lease", "1ms"},
			wantErr: "--db file.db: calq worker needs a PostgreSQL address (postgres://... or host=... dbname=...); a journal file is not shared between machines",
		},
		{
			name:    "the shared root before the lease",
			args:    []string{"--db", pg, "--lease", "1ms", "--shared-root", file},
			wantErr: "--shared-root " + file + ": not a directory",
		},
		{
			name:    "the lease before the kinds",
			args:    []string{"--db", pg, "--lease", "1ms", "--kinds", "bogus"},
			wantErr: "--lease 1ms: want at least 1s",
		},
		{
			name:    "the kinds before the name",
			args:    []string{"--db", pg, "--kinds", "bogus", "--name", "a b"},
			wantErr: `--kinds: unknown kind "bogus" (want convert, convert-office, convert-image, convert-pdf, convert-html, sms, shell)`,
		},
		{
			name:    "the name before the jobs",
			args:    []string{"--db", pg, "--name", "a b", "-j", "0"},
			wantErr: `--name "a b": want a name without spaces`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			got, err := workerArgs(t, tt.args)
			if tt.wantErr != "" {
				var ue *base.UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("got error %#v, want a usage error %q", err, tt.wantErr)
				}
				// The message, then the hint calq prints under it.
				got, want := ue.Error()+"\n"+ue.Hint(), tt.wantErr+"\nrun 'calq worker --help' for usage"
				if got != want {
					t.Errorf("got usage error %q, want %q", got, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			want := workerOpts{DB: pg, Lease: pgqueue.DefaultLease, Kinds: converts, Jobs: runtime.NumCPU(),
				StateDir: lo.DefaultStateDir(), Grace: 5 * time.Second}
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v,\nwant %+v", got, want)
			}
		})
	}
}
