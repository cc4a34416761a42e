// Command calq is one static binary for back offices and ops scripts.
//
// This file builds the command tree, turns errors into exit statuses in
// one place (exitCode) and reports them on stderr as "calq: ...". args.go
// lets flags follow the arguments; usage.go words usage errors; cli.go
// holds what commands share (--db, the journal, --json). Each leaf command
// lives in its own cmd_*.go file (cmd_sms_send.go holds only calq sms
// send); its Action reads flags into an options struct, makes one package
// call and renders the result.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/convert"
	"calq/internal/cli/analyzecmd"
	"calq/internal/cli/base"
	"calq/internal/cli/contactscmd"
	"calq/internal/cli/convertcmd"
	"calq/internal/cli/historycmd"
	"calq/internal/cli/schedcmd"
	"calq/internal/cli/smscmd"
	"calq/internal/cli/workercmd"
	"calq/internal/exitcode"
	"calq/internal/proc"
	"calq/sched/schedbench"
	"calq/sms"
)

// Exit statuses; exitStatuses documents them in help and the README.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitPartial     = 3
	exitQueued      = 4 // calq sms send: left queued for a retry
	exitUnknown     = 5 // calq sms send: a message's outcome is unknown
	exitInterrupted = 130
)

// exitStatuses documents the statuses in help and the README, in the
// order of their precedence when one run has several outcomes: a message
// whose fate is unknown outranks one left queued, which outranks a usage
// error, which outranks a partial failure. smsOnly rows show in the help
// of calq sms's commands alone.
var exitStatuses = []struct {
	code    int
	meaning string
	smsOnly bool
}{
	{exitOK, "success", false},
	{exitUnknown, "calq sms: the outcome of some message is unknown (the modem took it but did not answer)", true},
	{exitQueued, "calq sms: some message is left queued, for a retry or for the daemon (or spooled on this machine for a shared outbox that did not answer)", true},
	{exitUsage, "usage error: unknown command or flag, missing or invalid argument or flag value", false},
	{exitPartial, "partial failure: some items of a batch failed, the others succeeded", false},
	{exitFailure, "failure: nothing succeeded", false},
	{exitInterrupted, "interrupted by SIGINT or SIGTERM", false},
}

func main() {
	proc.MaybeRunGuard() // a guard for a child command runs here and exits
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// A second signal ends calq at once instead of waiting for the
	// clean-up, with status 130 as the first (the default handler would
	// make it 143 for SIGTERM).
	again := make(chan os.Signal, 2)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	go exitOnSecondSignal(again)
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	// Read the cause before stop, which would cancel ctx itself.
	if cause := context.Cause(ctx); cause != nil {
		err = interrupted(cause, err)
	}
	stop()
	report(os.Stderr, err)
	os.Exit(exitCode(err))
}

// exitOnSecondSignal exits at the second signal that sigs delivers (the
// first ends main's context), reporting it as an interruption.
func exitOnSecondSignal(sigs <-chan os.Signal) {
	<-sigs
	sig := <-sigs
	err := fmt.Errorf("%v signal received again: exiting without waiting for the running work to stop: %w", sig, context.Canceled)
	report(os.Stderr, err)
	os.Exit(exitCode(err))
}

// run runs calq with args (args[0] is the program name), writing results
// and help to stdout and progress to stderr. It returns errors instead of
// printing them, and never exits the process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	app := newApp(stdout, stderr)
	r := reorderArgs(app, args)
	app.Metadata = map[string]any{base.MetaArgv: args}
	if r.dash {
		app.Metadata[base.MetaAfterDash] = r.afterDash // sched run tells "-- CMD" from FILE by it
	}
	err := app.RunContext(ctx, r.args)
	if urfaveExit(err) {
		// urfave returns an ExitCoder only for "help" on an unknown topic;
		// its own exit code would clash with ours.
		err = &base.UsageError{Err: errors.New(strings.ToLower(err.Error())), Help: "run 'calq help' for the list of commands"}
	}
	return err
}

// urfaveExit says whether err is urfave's own ExitCoder. A child
// process's *exec.ExitError has an ExitCode method too, and is a failure
// of the job, not a usage error.
func urfaveExit(err error) bool {
	var ec cli.ExitCoder
	var ue *base.UsageError
	var xe *exec.ExitError
	return errors.As(err, &ec) && !errors.As(err, &ue) && !errors.As(err, &xe)
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:      "calq",
		Usage:     "batch tools for back offices and ops scripts",
		Writer:    stdout,
		ErrWriter: stderr,
		// Exit statuses are decided in main by exitCode, never by urfave.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		// urfave adds --help only along with its own help command.
		Flags:                 []cli.Flag{cli.HelpFlag},
		Action:                rootAction,
		CustomAppHelpTemplate: cli.AppHelpTemplate + exitStatusHelp(true),
		Commands: []*cli.Command{
			convertcmd.Command(),
			smscmd.Command(),
			schedcmd.Command(),
			workercmd.Command(),
			analyzecmd.Command(),
			historycmd.Command(),
			contactscmd.Command(),
			doctorCommand(),
			versionCommand(),
			helpCommand(),
		},
	}
	setupCommands(app.Commands, false)
	return app
}

// setupCommands gives every command calq's usage-error handling and the
// EXIT STATUS section in its help (calq sms's with the SMS-only
// statuses), hides the run's secrets from children before a command
// runs, and makes groups reject unknown subcommands.
func setupCommands(cmds []*cli.Command, sms bool) {
	for _, c := range cmds {
		sms := sms || c.Name == "sms"
		c.OnUsageError = onUsageError
		if len(c.Subcommands) == 0 {
			c.CustomHelpTemplate = cli.CommandHelpTemplate + exitStatusHelp(sms)
			if c.Action != nil {
				c.Action = hidingSecrets(c.Action)
			}
			if c.ArgsUsage == "" && c.Action != nil {
				c.Action = noArgs(c.Action) // a usage error before the rest
			}
			continue
		}
		c.CustomHelpTemplate = cli.SubcommandHelpTemplate + exitStatusHelp(sms)
		if c.Action == nil {
			c.Action = groupAction
		}
		c.Action = hidingSecrets(c.Action)
		setupCommands(c.Subcommands, sms)
	}
}

// noArgs refuses arguments to a command that takes none (its help shows
// no ARGS), rather than ignoring them.
func noArgs(action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.Args().Present() {
			return base.Usagef(c, "unexpected argument %q", c.Args().First())
		}
		return action(c)
	}
}

func exitStatusHelp(sms bool) string {
	var b strings.Builder
	b.WriteString("\nEXIT STATUS (the first that applies):\n")
	for _, s := range exitStatuses {
		if s.smsOnly && !sms {
			continue
		}
		fmt.Fprintf(&b, "   %-5d%s\n", s.code, s.meaning)
	}
	return b.String()
}

// helpCommand replaces urfave's, which cannot show the subcommands of a
// group ("calq help sched"): it asks the named command for --help instead.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show help for calq or for a command",
		ArgsUsage: "[command [subcommand]]",
		Action: func(c *cli.Context) error {
			args := append([]string{c.App.Name}, c.Args().Slice()...)
			return c.App.RunContext(c.Context, append(args, "--help"))
		},
	}
}

// rootAction runs for calq without a command: a usage error with the
// help on stderr, or an unknown command (urfave would exit 3 for it).
func rootAction(c *cli.Context) error {
	if c.Args().Present() {
		return unknownCommand(c, c.App.Commands)
	}
	c.App.Writer = c.App.ErrWriter
	if err := cli.ShowAppHelp(c); err != nil {
		return err
	}
	return base.Usagef(c, "no command given")
}

// groupAction is rootAction for commands that only group subcommands.
func groupAction(c *cli.Context) error {
	if c.Args().Present() {
		return unknownCommand(c, c.Command.Subcommands)
	}
	c.App.Writer = c.App.ErrWriter
	if err := cli.ShowSubcommandHelp(c); err != nil {
		return err
	}
	return base.Usagef(c, "no command given: calq %s needs one of its commands", c.Command.Name)
}

// unknownCommand is the usage error for a word that names none of cmds,
// with the nearest as a "did you mean".
func unknownCommand(c *cli.Context, cmds []*cli.Command) error {
	name := c.Args().First()
	err := base.Usagef(c, "unknown command %q", name)
	best, bestD := "", 3
	for _, cmd := range cmds {
		for _, n := range cmd.Names() {
			if d := editDistance(name, n); d < bestD {
				best, bestD = cmd.Name, d
			}
		}
	}
	if best != "" {
		ue := err.(*base.UsageError)
		ue.Help = fmt.Sprintf("did you mean %q? %s", best, ue.Help)
	}
	return err
}

// interrupted marks err, the result of a run cut short by a signal, so
// that it exits with status 130 and names the signal.
func interrupted(cause, err error) error {
	if err == nil {
		// The command finished anyway, but its output may be incomplete.
		return cause
	}
	if errors.Is(err, cause) {
		return err // it says so already
	}
	return fmt.Errorf("%w (%w)", err, cause)
}

// exitCode is the one place that decides calq's exit status, by the
// precedence exitStatuses documents. Packages return sentinel errors and
// know no numbers.
func exitCode(err error) int {
	var ue *base.UsageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, sms.ErrUnknown):
		return exitUnknown
	case errors.Is(err, sms.ErrQueued):
		return exitQueued
	case errors.As(err, &ue), errors.Is(err, sms.ErrUsage), errors.Is(err, schedbench.ErrOptions), errors.Is(err, analyze.ErrInput),
		errors.Is(err, convert.ErrUsage):
		return exitUsage
	case errors.Is(err, exitcode.ErrPartial):
		return exitPartial
	}
	return exitFailure
}

// report prints err as "calq: message" and any hints an error in its
// chain carries as "calq: hint: ..." lines.
func report(w io.Writer, err error) {
	if err == nil {
		return
	}
	// errors.Join puts one error per line; each gets the prefix.
	// Each line escaped: an error may quote a file, a label or what a
	// database or a modem said.
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "calq: %s\n", base.SafeText(line))
	}
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		fmt.Fprintf(w, "calq: hint: %s\n", base.SafeText(h.Hint()))
	}
}
