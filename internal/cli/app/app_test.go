package app

import (
	"calq/internal/cli/base"
	"calq/internal/exitcode"
	"calq/sched/schedbench"
	"calq/sms"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestExitCode(t *testing.T) {
	usage := &base.UsageError{Err: errors.New("flag provided but not defined: -x")}
	partial := fmt.Errorf("%w: 2 of 5 files failed", exitcode.ErrPartial)
	signalled := func() error {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGUSR1)
		defer stop()
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
		return context.Cause(ctx)
	}()
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"plain", errors.New("boom"), 1},
		{"deadline", context.DeadlineExceeded, 1},
		{"usage", usage, 2},
		{"usage wrapped", fmt.Errorf("sched bench: %w", usage), 2},
		{"usage joined", errors.Join(errors.New("a"), usage), 2},
		{"bench options", fmt.Errorf("sched bench: %w", fmt.Errorf("%w: size 0", schedbench.ErrOptions)), 2},
		{"partial", exitcode.ErrPartial, 3},
		{"partial wrapped", fmt.Errorf("convert: %w", partial), 3},
		{"partial joined", errors.Join(partial, errors.New("b.docx: corrupt")), 3},
		// Precedence: unknown 5 > queued 4 > usage 2 > partial 3 > failure 1.
		{"sms unknown", fmt.Errorf("sms send: %w", sms.ErrUnknown), 5},
		{"sms queued", fmt.Errorf("sms send: %w", sms.ErrQueued), 4},
		{"sms usage", fmt.Errorf("%w: bad", sms.ErrUsage), 2},
		{"unknown over queued", errors.Join(sms.ErrQueued, sms.ErrUnknown), 5},
		{"queued over usage", errors.Join(usage, sms.ErrQueued), 4},
		{"usage over partial", errors.Join(partial, usage), 2},
		{"unknown over partial", errors.Join(partial, sms.ErrUnknown), 5},
		{"canceled", context.Canceled, 130},
		{"canceled wrapped", fmt.Errorf("sched bench: %w", context.Canceled), 130},
		{"signal cause", signalled, 130},
		{"interrupted success", interrupted(signalled, nil), 130},
		{"interrupted failure", interrupted(signalled, errors.New("boom")), 130},
		{"interrupted partial", interrupted(signalled, partial), 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExitCode(tt.err); got != tt.want {
				t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

func TestReport(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain", errors.New("boom"), "calq: boom\n"},
		{"hint", fmt.Errorf("x: %w", &base.UsageError{Err: errors.New("bad"), Help: "run 'calq --help'"}),
			"calq: x: bad\ncalq: hint: run 'calq --help'\n"},
		{"joined", errors.Join(errors.New("a"), errors.New("b")), "calq: a\ncalq: b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			Report(&b, tt.err)
			if got := b.String(); got != tt.want {
				t.Errorf("report(%v) wrote %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func TestVersionText(t *testing.T) {
	base := versionInfo{Version: "(devel)", GoVersion: "go1.26.0", OS: "linux", Arch: "amd64"}
	withVCS := base
	withVCS.Version, withVCS.Revision, withVCS.Time = "v0.1.0", "0123abcd", "2025-01-02T03:04:05Z"
	modified := withVCS
	modified.Modified = true
	noTime := withVCS
	noTime.Time = ""
	tests := []struct {
		name string
		v    versionInfo
		want string
	}{
		{"devel", base, "calq (devel) go1.26.0 linux/amd64\n"},
		{"vcs", withVCS, "calq v0.1.0 (rev 0123abcd 2025-01-02T03:04:05Z) go1.26.0 linux/amd64\n"},
		{"modified", modified, "calq v0.1.0 (rev 0123abcd 2025-01-02T03:04:05Z, modified) go1.26.0 linux/amd64\n"},
		{"no time", noTime, "calq v0.1.0 (rev 0123abcd) go1.26.0 linux/amd64\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.v.writeText(&b); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("writeText() wrote %q, want %q", got, tt.want)
			}
		})
	}
}

// moduleRoot is the module's directory, where go list ./... and the
// README are: tests run in their package's directory.
const moduleRoot = "../../.."

// TestImportRules keeps the layers of CONVENTIONS.md apart (production
// imports; tests may import what they need):
//   - package main imports internal/cli/app alone of the command line;
//   - only internal/cli/... imports urfave/cli, and nothing below the
//     command line imports internal/cli/...;
//   - a command group (internal/cli/<group>cmd) imports base and domain
//     packages, never app or another group; the one tie allowed is
//     workercmd on smscmd, for the modem flags;
//   - sched and its subpackages import no client of theirs (convert, sms,
//     analyze);
//   - convert, sms and analyze import no sibling;
//   - no production package imports the modem emulator or a bench
//     package: only the command line (which wires calq sms emulate and
//     the bench commands) and the bench packages themselves;
//   - analyze needs the calendar queue only: no prometheus, SQLite or
//     os/exec.
func TestImportRules(t *testing.T) {
	list := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	list.Dir = moduleRoot
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if why := importRule(pkg, imp); why != "" {
				t.Errorf("%s imports %s: %s", pkg, imp, why)
			}
		}
	}
	deps := exec.Command("go", "list", "-deps", "./analyze")
	deps.Dir = moduleRoot
	out, err = deps.Output()
	if err != nil {
		t.Fatalf("go list -deps ./analyze: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "prometheus") || strings.Contains(dep, "sqlite") || dep == "os/exec" {
			t.Errorf("calq/analyze depends on %s", dep)
		}
	}
}

// TestImportRule: the rules catch each kind of wrong import.
func TestImportRule(t *testing.T) {
	tests := []struct {
		pkg, imp string
		bad      bool
	}{
		{"calq", "calq/internal/cli/app", false},
		{"calq", "github.com/urfave/cli/v2", true},
		{"calq", "calq/internal/cli/base", true},
		{"calq", "calq/internal/cli/convertcmd", true},
		{"calq", "calq/convert", true},
		{"calq/sms", "github.com/urfave/cli/v2", true},
		{"calq/internal/cli/base", "github.com/urfave/cli/v2", false},
		{"calq/internal/cli/smscmd", "github.com/urfave/cli/v2", false},
		{"calq/internal/clix", "github.com/urfave/cli/v2", true},
		{"calq/internal/cli/app", "calq/internal/cli/convertcmd", false},
		{"calq/internal/cli/app", "calq/internal/cli/base", false},
		{"calq/internal/cli/convertcmd", "calq/internal/cli/base", false},
		{"calq/internal/cli/convertcmd", "calq/convert", false},
		{"calq/internal/cli/convertcmd", "calq/internal/cli/app", true},
		{"calq/internal/cli/historycmd", "calq/internal/cli/convertcmd", true},
		{"calq/internal/cli/schedcmd", "calq/internal/cli/smscmd", true},
		{"calq/internal/cli/smscmd", "calq/internal/cli/workercmd", true},
		{"calq/internal/cli/workercmd", "calq/internal/cli/smscmd", false},
		{"calq/internal/cli/servecmd", "calq/internal/cli/smscmd", false},
		{"calq/internal/cli/servecmd", "calq/internal/cli/convertcmd", true},
		{"calq/internal/cli/base", "calq/internal/cli/smscmd", true},
		{"calq/internal/cli/base", "calq/internal/cli/app", true},
		{"calq/sms", "calq/internal/cli/base", true},
		{"calq/internal/dburl", "calq/internal/cli/base", true},
		{"calq/sched", "calq/sched/cq", false},
		{"calq/sched/journal", "calq/sms/store", true},
		{"calq/sched/schedbench", "calq/convert", true},
		{"calq/sms", "calq/sched/journal", false},
		{"calq/sms/store", "calq/convert/contacts", true},
		{"calq/analyze", "calq/sms", true},
		{"calq/convert/mail", "calq/convert/contacts", false},
		{"calq/sms", "calq/sms/emu", true},
		{"calq/sms/smsbench", "calq/sms/emu", false},
		{"calq/internal/cli/smscmd", "calq/sms/emu", false},
		{"calq/sched/shell", "calq/sched/schedbench", true},
		{"calq/internal/cli/convertcmd", "calq/convert/convertbench", false},
		{"calq/internal/serve/servebench", "calq/convert/convertbench", false},
		{"calq/internal/serve", "calq/convert/convertbench", true},
		{"calq/internal/cli/convertcmd", "calq/internal/serve/webbench", false},
		{"calq/internal/serve", "calq/internal/serve/webbench", true},
		{"calq/internal/proc", "calq/sched", false},
	}
	for _, tt := range tests {
		if got := importRule(tt.pkg, tt.imp) != ""; got != tt.bad {
			t.Errorf("importRule(%s, %s) forbids: %v, want %v", tt.pkg, tt.imp, got, tt.bad)
		}
	}
}

// importRule says why pkg may not import imp, or "".
func importRule(pkg, imp string) string {
	domain := func(p string) string { // "sched", "convert", "sms", "analyze" or ""
		for _, d := range []string{"sched", "convert", "sms", "analyze"} {
			if p == "calq/"+d || strings.HasPrefix(p, "calq/"+d+"/") {
				return d
			}
		}
		return ""
	}
	isBench := func(p string) bool {
		return slices.Contains([]string{"calq/sched/schedbench", "calq/sms/smsbench", "calq/convert/convertbench", "calq/internal/serve/servebench",
			"calq/internal/serve/webbench", "calq/internal/serve/smshttpbench"}, p)
	}
	isCLI := func(p string) bool { return strings.HasPrefix(p, "calq/internal/cli/") }
	group := func(p string) string { // "convertcmd" for calq/internal/cli/convertcmd, or ""
		g, ok := strings.CutPrefix(p, "calq/internal/cli/")
		if !ok || !strings.HasSuffix(g, "cmd") || strings.Contains(g, "/") {
			return ""
		}
		return g
	}
	from, to := domain(pkg), domain(imp)
	switch {
	case pkg == "calq" && strings.HasPrefix(imp, "calq/") && imp != "calq/internal/cli/app" && imp != "calq/internal/proc":
		return "main only starts internal/cli/app"
	case imp == "github.com/urfave/cli/v2" && !isCLI(pkg):
		return "only the command line (internal/cli/...) may"
	case strings.HasPrefix(imp, "calq/internal/cli/") && !isCLI(pkg) && pkg != "calq":
		return "the command line is the top layer: nothing under it imports it"
	case imp == "calq/internal/cli/app" && pkg != "calq" && pkg != "calq/internal/cli/e2e":
		return "app is the top of the command line: only main starts it"
	case group(imp) != "" && group(pkg) != "" && !((pkg == "calq/internal/cli/workercmd" || pkg == "calq/internal/cli/servecmd") && imp == "calq/internal/cli/smscmd"):
		return "a command group imports no other group (workercmd and servecmd may import smscmd for the modem and daemon flags)"
	case pkg == "calq/internal/cli/base" && isCLI(imp):
		return "base is under every command: it imports no group"
	case from == "sched" && to != "" && to != "sched":
		return "sched is the engine under its clients"
	case from != "" && from != "sched" && to != "" && to != "sched" && to != from:
		return "convert, sms and analyze are siblings"
	case imp == "calq/sms/emu" && !isCLI(pkg) && !isBench(pkg):
		return "the emulator is for tests, dry runs and benches"
	case isBench(imp) && !isCLI(pkg) && !isBench(pkg):
		return "only the command line wires the benches (a bench may time another's baseline)"
	}
	return ""
}

// TestREADMEExitStatus keeps the README's exit status table in step with
// the statuses calq documents in its help.
func TestREADMEExitStatus(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range exitStatuses {
		row := fmt.Sprintf("| %d | %s |", s.code, s.meaning)
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md lacks the row %q", row)
		}
	}
}

// TestURFaveExit: only urfave's own ExitCoder becomes a usage error; a
// command's exit status wrapped in an error stays a failure (exit 1).
func TestURFaveExit(t *testing.T) {
	xe := exec.Command("sh", "-c", "exit 7").Run()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"urfave", cli.Exit("No help topic for 'x'", 3), true},
		{"a job's exit status", fmt.Errorf("soffice: %w", xe), false},
		{"usage", &base.UsageError{Err: errors.New("bad")}, false},
		{"plain", errors.New("x"), false},
	}
	for _, tt := range tests {
		if got := urfaveExit(tt.err); got != tt.want {
			t.Errorf("%s: urfaveExit = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := ExitCode(fmt.Errorf("soffice: %w", xe)); got != exitFailure {
		t.Errorf("ExitCode of a wrapped exit status = %d, want %d", got, exitFailure)
	}
}
