package smscmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/dburl"
	"calq/internal/pgdb"
	"calq/sched/journal"
	"calq/sms"
	"calq/sms/store"
)

// smsStatePath is this machine's journal file for the shared database at
// url (sms-<digest>.db in the state directory, the digest of its address
// without the password): the engine of a daemon or worker sending from
// it, and the spool of messages calq sms send kept while it was down.
func smsStatePath(url string) string {
	def := base.DefaultJournalPath()
	if def == "" {
		return "" // no home: journal.Open says so
	}
	sum := sha256.Sum256([]byte(dburl.Redact(url)))
	return filepath.Join(filepath.Dir(def), "sms-"+hex.EncodeToString(sum[:6])+".db")
}

// spoolable reports whether err, from opening the shared outbox, says
// its server is away (not a refusal, nor an interrupt): what send then
// keeps on this machine rather than lose.
func spoolable(err error) bool { return pgdb.Transient(err) }

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
	path, addr := smsStatePath(db), dburl.Redact(db)
	// Spooling must not be cut short by the --timeout that just ran out.
	ctx := context.WithoutCancel(c.Context)
	spooled, err := spool(ctx, path, addr, msgs)
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

// spool keeps msgs in the spool of the journal file at path, for the
// shared database at addr.
func spool(ctx context.Context, path, addr string, msgs []store.SMSMessage) (sps []store.Spooled, err error) {
	jn, err := journal.Open(ctx, path, journal.Options{})
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, jn.Close()) }()
	sp, err := store.OpenSpool(ctx, jn)
	if err != nil {
		return nil, err
	}
	return sp.Add(ctx, addr, msgs, time.Now())
}

// forwardSpool moves the messages spooled on this machine for the shared
// database at url into its outbox st, once each, and says so on w. jn is
// the machine's journal for that database when the caller holds it open,
// else nil: the file is opened only when it exists. What it could not
// forward stays spooled, for the next command.
func forwardSpool(ctx context.Context, w io.Writer, url string, jn *journal.Journal, st *store.Store) (err error) {
	path := smsStatePath(url)
	if jn == nil {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if jn, err = journal.Open(ctx, path, journal.Options{}); err != nil {
			return fmt.Errorf("forward the sms spooled in %s: %w", path, err)
		}
		defer func() { err = errors.Join(err, jn.Close()) }()
	}
	sp, err := store.OpenSpool(ctx, jn)
	var ids []int64
	if err == nil {
		ids, err = sp.Forward(ctx, dburl.Redact(url), st)
	}
	if len(ids) > 0 {
		fmt.Fprintf(w, "calq: forwarded %s spooled in %s to %s: ids %s\n",
			base.Plural(len(ids), "message"), path, dburl.Redact(url), joinIDs(ids))
	}
	if err != nil {
		return fmt.Errorf("forward the sms spooled in %s: %w", path, err)
	}
	return nil
}

// SpoolFeed is a running daemon's DaemonOptions.Feed: what calq sms send
// spools on this machine during a later outage is forwarded once the
// database answers again, not only at the next start.
func SpoolFeed(c *cli.Context, link *pgdb.Link, jn *journal.Journal, st *store.Store) func(context.Context) error {
	return func(ctx context.Context) error {
		if link.Down() {
			return nil // the spool waits for the store's next success
		}
		return forwardSpool(ctx, c.App.ErrWriter, base.JournalPath(c), jn, st)
	}
}

// spooledSMS lists the messages spooled on this machine for the shared
// --db, as outbox messages in state spooled (no id: the shared outbox
// has given them none yet).
func spooledSMS(c *cli.Context) ([]store.SMSMessage, error) {
	db := base.JournalPath(c)
	path := smsStatePath(db)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	jn, err := journal.Open(c.Context, path, journal.Options{})
	if err != nil {
		return nil, err
	}
	defer jn.Close()
	sp, err := store.OpenSpool(c.Context, jn)
	if err != nil {
		return nil, err
	}
	sps, err := sp.List(c.Context, dburl.Redact(db))
	if err != nil {
		return nil, err
	}
	ms := make([]store.SMSMessage, len(sps))
	for i, s := range sps {
		ms[i] = s.Message
		ms[i].ID, ms[i].State, ms[i].Updated = 0, store.SMSSpooled, s.Message.Created
		ms[i].Reason = "kept in " + path + " until the database answers"
		for j := range ms[i].Parts {
			ms[i].Parts[j].State, ms[i].Parts[j].MR = store.SMSPending, -1
		}
	}
	return ms, nil
}

func joinIDs(ids []int64) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(id)
	}
	return s
}
