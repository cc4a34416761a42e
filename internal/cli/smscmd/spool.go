package smscmd

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/dburl"
	"calq/sms"
	"calq/sms/store"
)

// spooledError is send's outcome when the shared outbox did not answer
// and the messages were spooled: exit 4 (queued), not lost.
type spooledError struct {
	n          int
	path, addr string
	cause      error
}

func (e *spooledError) Error() string {
	return fmt.Sprintf("sms send: %v\n%s spooled in %s, for %s", e.cause, base.Plural(e.n, "message"), e.path, e.addr)
}

func (e *spooledError) Is(target error) bool { return target == sms.ErrQueued }

func (e *spooledError) Hint() string {
	return "the next calq sms send, sms status, sms daemon or worker --kinds sms on this machine that reaches the database forwards it; calq sms status lists it as spooled until then"
}

// spoolSend keeps o's messages in this machine's spool for the shared
// --db, whose server did not answer (cause), and returns them as spooled.
func spoolSend(c *cli.Context, o sms.SendOptions, cause error) (sms.Result, error) {
	if o.Queued {
		return sms.Result{}, fmt.Errorf("sms send: %w", cause) // nothing new to keep
	}
	msgs, changes, err := sms.Compose(o.To, o.Text, o)
	if err != nil {
		return sms.Result{}, &base.UsageError{Err: err, Help: base.HelpHint(c)}
	}
	for _, ch := range changes {
		o.Warn(fmt.Errorf("transliterated %q → %q (%d×)", ch.From, ch.To, ch.Count))
	}
	db := base.JournalPath(c)
	path, addr := sms.StatePath(base.StateDir(), db), dburl.Redact(db)
	// Spooling must not be cut short by the --timeout that just ran out.
	ctx := context.WithoutCancel(c.Context)
	spooled, err := sms.Spool(ctx, path, addr, msgs)
	if err != nil {
		return sms.Result{}, fmt.Errorf("sms send: %v; spool the messages in %s: %w; nothing was recorded", cause, path, err)
	}
	res := sms.Result{Transliterated: changes}
	for _, s := range spooled {
		res.Messages = append(res.Messages, sms.MessageResult{To: s.Message.To, State: store.SMSSpooled,
			Reason: "the database did not answer: kept on this machine", Parts: len(s.Message.Parts), MR: []int{}})
	}
	return res, &spooledError{n: len(spooled), path: path, addr: addr, cause: cause}
}

// spooledSMS lists the messages spooled on this machine for the shared
// --db (sms.SpooledMessages).
func spooledSMS(c *cli.Context) ([]store.SMSMessage, error) {
	return sms.SpooledMessages(c.Context, base.StateDir(), base.JournalPath(c))
}
