package app

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

	"calq/internal/cli/analyzecmd"
	"calq/internal/cli/base"
	"calq/internal/cli/contactscmd"
	"calq/internal/cli/convertcmd"
	"calq/internal/cli/historycmd"
	"calq/internal/cli/schedcmd"
	"calq/internal/cli/servecmd"
	"calq/internal/cli/smscmd"
	"calq/internal/cli/userscmd"
	"calq/internal/cli/workercmd"
)

// Main runs calq with args (args[0] is the program name) as a process
// does: SIGINT and SIGTERM cancel the run (a second one exits at once),
// an error is reported on stderr as "calq: ...", and the result is the
// exit status, decided by ExitCode. It never exits the process itself
// except at that second signal.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// A second signal ends calq at once instead of waiting for the
	// clean-up, with status 130 as the first (the default handler would
	// make it 143 for SIGTERM).
	again := make(chan os.Signal, 2)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	go exitOnSecondSignal(stderr, again)
	err := Run(ctx, args, stdout, stderr)
	// Read the cause before stop, which would cancel ctx itself.
	if cause := context.Cause(ctx); cause != nil {
		err = interrupted(cause, err)
	}
	stop()
	Report(stderr, err)
	return ExitCode(err)
}

// exitOnSecondSignal exits at the second signal that sigs delivers (the
// first ends Main's context), reporting it as an interruption.
func exitOnSecondSignal(stderr io.Writer, sigs <-chan os.Signal) {
	<-sigs
	sig, ok := <-sigs
	if !ok {
		return
	}
	err := fmt.Errorf("%v signal received again: exiting without waiting for the running work to stop: %w", sig, context.Canceled)
	Report(stderr, err)
	os.Exit(ExitCode(err))
}

// Run runs calq with args (args[0] is the program name), writing results
// and help to stdout and progress to stderr. It returns errors instead of
// printing them, and never exits the process.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	app := New(stdout, stderr)
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

// New builds calq's command tree, the one list of its commands, writing
// results and help to stdout and diagnostics to stderr.
func New(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:      "calq",
		Usage:     "batch tools for back offices and ops scripts",
		Writer:    stdout,
		ErrWriter: stderr,
		// Exit statuses are decided by ExitCode, never by urfave.
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
			servecmd.Command(),
			analyzecmd.Command(),
			historycmd.Command(),
			contactscmd.Command(),
			userscmd.Command(),
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

// urfaveExit says whether err is urfave's own ExitCoder. A child
// process's *exec.ExitError has an ExitCode method too, and is a failure
// of the job, not a usage error.
func urfaveExit(err error) bool {
	var ec cli.ExitCoder
	var ue *base.UsageError
	var xe *exec.ExitError
	return errors.As(err, &ec) && !errors.As(err, &ue) && !errors.As(err, &xe)
}
