package mail

import (
	"context"
	"fmt"
	"path/filepath"
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
}

// Deliver mails what a run wrote: the PDFs it converted (written), or
// the merged PDF when one was made again. A run with nothing new sends
// nothing. The error is also in Result.
func (d *Delivery) Deliver(ctx context.Context, written []string, merged string, now time.Time) (Result, error) {
	files := written
	if merged != "" && len(files) > 0 {
		files = []string{merged}
	}
	res := Result{To: d.to, Attachments: AttachmentNames(d.out, files)}
	if len(files) == 0 {
		res.State, res.Reason = "not_sent", "nothing new was converted"
		return res, nil
	}
	n := fmt.Sprintf("%d PDFs", len(files))
	if len(files) == 1 {
		n = "1 PDF"
	}
	subject := fmt.Sprintf("calq: %s converted %s", n, now.Format("2006-01-02 15:04"))
	body := "Converted by calq:\n\n  " + strings.Join(res.Attachments, "\n  ") + "\n"
	err := Send(ctx, d.smtp, d.password, Message{To: d.to, Subject: subject, Body: body,
		Attachments: files, Names: res.Attachments})
	res.State = "sent"
	if err != nil {
		res.State, res.Reason = "failed", err.Error()
		return res, fmt.Errorf("mail: %w", err)
	}
	return res, nil
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
