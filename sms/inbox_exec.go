package sms

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"calq/internal/proc"
)

// ExecOptions say how RunExec runs an event handler.
type ExecOptions struct {
	Command        string   // a shell command line, run with /bin/sh -c
	Env            []string // the environment the SMS_ variables are added to; the caller's, typically
	Stdout, Stderr io.Writer
	Grace          time.Duration // from SIGTERM to SIGKILL when ctx ends; proc's default when zero
}

// RunExec runs o.Command for in, like smstools3's eventhandler, with
// the entry's text on standard input and its fields in the environment
// (see InboundEnv). The command runs in its own process group and is
// stopped with calq. A non-zero exit is an error.
func RunExec(ctx context.Context, o ExecOptions, in Inbound) error {
	env := append(append([]string(nil), o.Env...), InboundEnv(in)...)
	cmd := proc.Command(ctx, proc.Options{Env: env, Grace: o.Grace}, "/bin/sh", "-c", o.Command)
	cmd.Stdin = strings.NewReader(in.Text)
	cmd.Stdout, cmd.Stderr = o.Stdout, o.Stderr
	if err := cmd.Run(); err != nil {
		// %v: an *exec.ExitError has an ExitCode method, which calq's
		// main takes for urfave's cli.ExitCoder.
		return fmt.Errorf("--exec %q: %v", o.Command, err)
	}
	return nil
}

// InboundEnv returns in's fields as environment variables:
//
//	SMS_TYPE      message or report
//	SMS_ID        the journal's id
//	SMS_MODEM     the modem's name
//	SMS_FROM      the sender; for a report, the recipient of the message it answers
//	SMS_TEXT      the text (also on standard input)
//	SMS_SENT      the service centre time stamp, RFC 3339
//	SMS_RECEIVED  when calq filed it, RFC 3339, UTC
//	SMS_PARTS     parts present
//	SMS_TOTAL     parts announced
//	SMS_MISSING   the numbers of the missing parts, comma-separated; empty when complete
//
// and for a report SMS_MR, SMS_STATUS (TP-ST), SMS_OUTCOME (delivered,
// pending or failed) and SMS_DISCHARGED (RFC 3339).
func InboundEnv(in Inbound) []string {
	missing := make([]string, len(in.Missing))
	for i, n := range in.Missing {
		missing[i] = strconv.Itoa(n)
	}
	env := []string{
		"SMS_TYPE=" + in.Kind,
		"SMS_ID=" + strconv.FormatInt(in.ID, 10),
		"SMS_MODEM=" + in.Modem,
		"SMS_FROM=" + in.From,
		"SMS_TEXT=" + in.Text,
		"SMS_SENT=" + inboxRFC3339(in.Sent),
		"SMS_RECEIVED=" + inboxRFC3339(in.Received.UTC()),
		"SMS_PARTS=" + strconv.Itoa(in.Parts),
		"SMS_TOTAL=" + strconv.Itoa(in.Total),
		"SMS_MISSING=" + strings.Join(missing, ","),
	}
	if in.Kind == "report" {
		env = append(env, "SMS_MR="+strconv.Itoa(in.MR), "SMS_STATUS="+strconv.Itoa(in.Status),
			"SMS_OUTCOME="+in.Outcome, "SMS_DISCHARGED="+inboxRFC3339(in.Discharged))
	}
	return env
}

func inboxRFC3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}
