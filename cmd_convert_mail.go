package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"calq/convert"
	"calq/convert/mail"
	"calq/internal/config"
	"calq/sched/journal"
)

// mailing is a checked --mail-to: the recipients resolved, the server and
// its password read, before any conversion.
type mailing struct {
	cfg      config.SMTP
	password string
	to       []string
	out      string // --out, for the attachments' names
}

// prepareMail checks everything a mail needs; what is wrong is a usage
// error, so that nothing is converted for a mail that cannot be sent.
func prepareMail(c *cli.Context, jn *journal.Journal, to []string) (*mailing, error) {
	cfg, err := loadConfig(c)
	if err != nil {
		return nil, usageErrorf(c, "--mail-to: %w", err)
	}
	if cfg.SMTP.Host == "" {
		return nil, usageErrorf(c, "--mail-to: no [smtp] host in the config file (see calq convert --help)")
	}
	password, err := cfg.SMTP.Password(os.Getenv)
	if err != nil {
		return nil, usageErrorf(c, "--mail-to: %w", err)
	}
	addrs, err := jn.ResolveRecipients(c.Context, to)
	if err != nil {
		return nil, usageErrorf(c, "--mail-to: %w", err)
	}
	return &mailing{cfg: cfg.SMTP, password: password, to: addrs, out: c.String("out")}, nil
}

// mailResult is the --json line of a mail: {"message_type":"mail", ...}.
type mailResult struct {
	Type        string   `json:"message_type"` // "mail"
	To          []string `json:"to"`
	Attachments []string `json:"attachments"`
	State       string   `json:"state"` // sent, failed, not_sent (nothing new)
	Reason      string   `json:"reason,omitempty"`
}

// send mails what this run wrote: the PDFs it converted, or the merged
// one when it was made again. A run with nothing new sends nothing.
func (m *mailing) send(c *cli.Context, sum convert.Summary, out *convertRenderer) error {
	files := sum.New
	if sum.Merged != "" && len(files) > 0 {
		files = []string{sum.Merged}
	}
	res := mailResult{Type: "mail", To: m.to, Attachments: attachmentNames(m.out, files)}
	if len(files) == 0 {
		res.State, res.Reason = "not_sent", "nothing new was converted"
		out.mail(res)
		return nil
	}
	subject := fmt.Sprintf("calq: %s converted %s", plural(len(files), "PDF"), time.Now().Format("2006-01-02 15:04"))
	body := "Converted by calq:\n\n  " + strings.Join(res.Attachments, "\n  ") + "\n"
	err := mail.Send(c.Context, m.cfg, m.password, mail.Message{To: m.to, Subject: subject, Body: body,
		Attachments: files, Names: res.Attachments})
	res.State = "sent"
	if err != nil {
		res.State, res.Reason = "failed", err.Error()
	}
	out.mail(res)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	return nil
}

// attachmentNames names each file by its path below out, with "_" for
// "/" (mail clients keep only a name's last element), so that two PDFs
// of one base name from different directories stay apart; a file
// elsewhere (the merged one) by its base name. A name still taken is
// numbered.
func attachmentNames(out string, files []string) []string {
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
