package mail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"calq/internal/config"
)

// Resolver turns contact names and addresses into addresses; the
// journal's address book is one.
type Resolver interface {
	ResolveRecipients(ctx context.Context, names []string) ([]string, error)
}

// Delivery is a checked --mail-to: the recipients resolved and the
// server's password read, before any conversion, so that nothing is
// converted for a mail that cannot be sent.
type Delivery struct {
	smtp     config.SMTP
	password string
	to       []string
	out      string // the output directory, for the attachments' names
	// Undelivered, when set, keeps the PDFs a failed mail did not
	// deliver, and the next Deliver to the same recipients sends them.
	Undelivered *Undelivered
}

// Prepare checks everything a mail of the PDFs under out to the contacts
// or addresses to needs: the SMTP host, its password (through getenv),
// and each recipient. Its errors are the user's to fix.
func Prepare(ctx context.Context, cfg config.Config, getenv func(string) string, r Resolver, to []string, out string) (*Delivery, error) {
	if cfg.SMTP.Host == "" {
		return nil, fmt.Errorf("no [smtp] host in the config file (see calq convert --help)")
	}
	password, err := cfg.SMTP.Password(getenv)
	if err != nil {
		return nil, err
	}
	addrs, err := r.ResolveRecipients(ctx, to)
	if err != nil {
		return nil, err
	}
	return &Delivery{smtp: cfg.SMTP, password: password, to: addrs, out: out}, nil
}

// Result is what became of a delivery: --json's {"message_type":"mail"}.
type Result struct {
	To          []string `json:"to"`
	Attachments []string `json:"attachments"`
	State       string   `json:"state"` // sent, failed, not_sent (nothing new)
	Reason      string   `json:"reason,omitempty"`
	// Earlier are the attachments that failed mails of earlier runs left
	// undelivered (also in Attachments); Gone those of them deleted
	// since, which no mail can deliver any more.
	Earlier []string `json:"earlier,omitempty"`
	Gone    []string `json:"gone,omitempty"`
}

// Deliver mails what a run wrote: the PDFs it converted (written), or
// the merged PDF when one was made again, and the PDFs that earlier
// failed mails to the same recipients left undelivered. A run with
// nothing new and nothing left sends nothing. After a failure the PDFs
// it held are recorded undelivered, for the next run. The error is also
// in Result.
func (d *Delivery) Deliver(ctx context.Context, written []string, merged string, now time.Time) (Result, error) {
	files := absAll(written)
	if merged != "" && len(files) > 0 {
		files = absAll([]string{merged})
	}
	earlier, gone, err := d.earlier(ctx, files)
	if err != nil {
		return Result{To: d.to, State: "failed", Reason: err.Error()}, fmt.Errorf("mail: %w", err)
	}
	files = append(slices.Clone(files), earlier...)
	names := AttachmentNames(d.out, append(slices.Clone(files), gone...))
	res := Result{To: d.to, Attachments: names[:len(files)], Gone: names[len(files):]}
	if len(earlier) > 0 {
		res.Earlier = names[len(files)-len(earlier) : len(files)]
	}
	if len(files) == 0 {
		res.State, res.Reason = "not_sent", "nothing new was converted"
		if len(gone) > 0 {
			res.Reason += "; gone since an earlier mail failed: " + strings.Join(res.Gone, ", ")
			err = d.record(ctx, nil)
		}
		return res, err
	}
	n := fmt.Sprintf("%d PDFs", len(files))
	if len(files) == 1 {
		n = "1 PDF"
	}
	subject := fmt.Sprintf("calq: %s converted %s", n, now.Format("2006-01-02 15:04"))
	body := "Converted by calq:\n\n  " + strings.Join(res.Attachments, "\n  ") + "\n"
	err = Send(ctx, d.smtp, d.password, Message{To: d.to, Subject: subject, Body: body,
		Attachments: files, Names: res.Attachments})
	res.State = "sent"
	if err != nil {
		res.State, res.Reason = "failed", err.Error()
		return res, errors.Join(fmt.Errorf("mail: %w", err), d.record(context.WithoutCancel(ctx), files))
	}
	return res, d.record(context.WithoutCancel(ctx), nil)
}

// Hold records what a run wrote (as Deliver takes it) undelivered
// without mailing it, for the next run: the run was interrupted before
// its mail. The Result says so (not_sent).
func (d *Delivery) Hold(ctx context.Context, written []string, merged string, reason string) (Result, error) {
	files := absAll(written)
	if merged != "" && len(files) > 0 {
		files = absAll([]string{merged})
	}
	ctx = context.WithoutCancel(ctx) // the run was interrupted: ctx is done
	earlier, _, err := d.earlier(ctx, files)
	if err == nil {
		err = d.record(ctx, append(files, earlier...))
	}
	res := Result{To: d.to, Attachments: AttachmentNames(d.out, files), State: "not_sent", Reason: reason}
	if err != nil {
		return res, fmt.Errorf("mail: %w", err)
	}
	return res, nil
}

// earlier returns the PDFs earlier failed mails left undelivered that
// are not among files: those still on disk, and those gone since.
func (d *Delivery) earlier(ctx context.Context, files []string) (left, gone []string, err error) {
	if d.Undelivered == nil {
		return nil, nil, nil
	}
	recorded, err := d.Undelivered.Files(ctx, deliveryKey(d.to, d.out))
	if err != nil {
		return nil, nil, err
	}
	for _, f := range recorded {
		switch fi, err := os.Stat(f); {
		case slices.Contains(files, f):
		case err == nil && fi.Mode().IsRegular():
			left = append(left, f)
		default:
			gone = append(gone, f)
		}
	}
	return left, gone, nil
}

// absAll makes paths absolute, as the record of undelivered PDFs keeps
// them, so that a run from another directory finds them.
func absAll(paths []string) []string {
	abs := make([]string, len(paths))
	for i, p := range paths {
		var err error
		if abs[i], err = filepath.Abs(p); err != nil {
			abs[i] = p
		}
	}
	return abs
}

// record keeps files as the undelivered PDFs of this delivery.
func (d *Delivery) record(ctx context.Context, files []string) error {
	if d.Undelivered == nil {
		return nil
	}
	return d.Undelivered.Set(ctx, deliveryKey(d.to, d.out), files)
}

// AttachmentNames names each file by its path below out, with "_" for
// "/" (mail clients keep only a name's last element), so that two PDFs
// of one base name from different directories stay apart; a file
// elsewhere (the merged one) by its base name. A name still taken is
// numbered.
func AttachmentNames(out string, files []string) []string {
	abs, _ := filepath.Abs(out)
	names := make([]string, len(files))
	taken := map[string]bool{}
	for i, f := range files {
		rel, err := filepath.Rel(abs, f)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			rel = filepath.Base(f)
		}
		name := strings.ReplaceAll(filepath.ToSlash(rel), "/", "_")
		for n := 2; taken[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s (%d).pdf", strings.TrimSuffix(strings.ReplaceAll(filepath.ToSlash(rel), "/", "_"), ".pdf"), n)
		}
		taken[strings.ToLower(name)] = true
		names[i] = name
	}
	return names
}
