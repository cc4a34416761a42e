package base

import (
	"errors"
	"flag"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestFlagErrors(t *testing.T) {
	c := cli.NewContext(&cli.App{}, flag.NewFlagSet("x", flag.ContinueOnError), nil)
	c.Command = &cli.Command{Name: "run", HelpName: "calq sched run"}
	tests := []struct {
		name     string
		add      func(*FlagErrors)
		want     string // "" for no error
		wantHint string
	}{
		{"none", func(*FlagErrors) {}, "", ""},
		{"nil is nothing wrong", func(f *FlagErrors) { f.Add(nil) }, "", ""},
		{"one", func(f *FlagErrors) { f.Failf("jobs", "%d is below %d", -1, 0) },
			"--jobs: -1 is below 0", "run 'calq sched run --help' for usage"},
		{"every one, in order, nils skipped", func(f *FlagErrors) {
			f.Add(errors.New("--at: bad"), nil, errors.New("--label: only with --journal"))
			f.Failf("retries", "required")
			f.Errorf("unexpected argument %q", "x")
		}, "--at: bad\n--label: only with --journal\n--retries: required\nunexpected argument \"x\"",
			"run 'calq sched run --help' for usage"},
		{"a hinted check puts its hint first", func(f *FlagErrors) {
			f.Add(&Hinted{Err: errors.New("--out is a directory"), Help: "give a file"})
		}, "--out is a directory", "give a file; run 'calq sched run --help' for usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f FlagErrors
			tt.add(&f)
			err := f.Err(c)
			if tt.want == "" {
				if err != nil || f.Len() != 0 {
					t.Fatalf("Err() = %v, Len() = %d; want nil, 0", err, f.Len())
				}
				return
			}
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("Err() = %#v, want a *UsageError", err)
			}
			if ue.Error() != tt.want || ue.Hint() != tt.wantHint {
				t.Errorf("Err() = %q, hint %q; want %q, hint %q", ue.Error(), ue.Hint(), tt.want, tt.wantHint)
			}
		})
	}
}
