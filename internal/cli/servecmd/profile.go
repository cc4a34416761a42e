package servecmd

import (
	"context"
	"fmt"
	"os"
	"time"

	"calq/convert/contacts"
	"calq/convert/mail"
	"calq/convert/pdf"
	"calq/internal/config"
	"calq/internal/serve"
	"calq/sched/journal"
)

// profiles returns the conversion defaults of the config file's
// profiles, by name: what a user's requests get unless their form says
// otherwise.
func profiles(cfg config.Config) func(name string) (serve.Task, error) {
	return func(name string) (serve.Task, error) {
		p, err := cfg.Profile(name)
		if err != nil {
			return serve.Task{}, err
		}
		return profileTask(p)
	}
}

// profileTask is a profile as a job's task: watermark or stamp,
// metadata, optimisation, encryption (passwords read from the profile's
// files), PDF/A and recipients.
func profileTask(p config.Profile) (serve.Task, error) {
	t := serve.Task{PDFA: p.PDFA, MailTo: p.MailTo}
	if p.Watermark != "" || p.WatermarkImage != "" {
		wm := &pdf.Watermark{Text: p.Watermark, Image: p.WatermarkImage, Style: p.WatermarkStyle}
		if p.Stamp {
			t.Post.Stamp = wm
		} else {
			t.Post.Watermark = wm
		}
	}
	if m := (pdf.Metadata{Title: p.Title, Author: p.Author, Subject: p.Subject, Keywords: p.Keywords}); m.Title != "" ||
		m.Author != "" || m.Subject != "" || m.Keywords != "" {
		t.Post.Metadata = &m
	}
	t.Post.Optimize = p.Optimize != nil && *p.Optimize
	if !p.Encrypt {
		return t, nil
	}
	perms := p.Permissions
	if perms == "" {
		perms = "none"
	}
	pm, err := pdf.ParsePermissions(perms)
	if err != nil {
		return t, fmt.Errorf("permissions: %w", err)
	}
	enc := &pdf.Encryption{Permissions: pm}
	if p.OwnerPasswordFile == "" {
		return t, fmt.Errorf("encrypt needs owner_password_file")
	}
	if enc.OwnerPassword, err = config.ReadSecret(p.OwnerPasswordFile); err != nil {
		return t, err
	}
	if p.UserPasswordFile != "" {
		if enc.UserPassword, err = config.ReadSecret(p.UserPasswordFile); err != nil {
			return t, err
		}
	}
	t.Post.Encrypt = enc
	return t, nil
}

// mailer sends results through the config file's [smtp] server to the
// journal's contacts or to addresses; nil without a server.
func mailer(ctx context.Context, cfg config.Config, j *journal.Journal) serve.Mailer {
	if cfg.SMTP.Host == "" {
		return nil
	}
	return &smtpMailer{cfg: cfg, j: j}
}

type smtpMailer struct {
	cfg config.Config
	j   *journal.Journal
}

func (m *smtpMailer) resolve(ctx context.Context, to []string) ([]string, string, error) {
	book, err := contacts.Open(ctx, m.j)
	if err != nil {
		return nil, "", err
	}
	addrs, err := book.ResolveRecipients(ctx, to)
	if err != nil {
		return nil, "", err
	}
	password, err := m.cfg.SMTP.Password(os.Getenv)
	return addrs, password, err
}

func (m *smtpMailer) Check(ctx context.Context, to []string) error {
	_, _, err := m.resolve(ctx, to)
	return err
}

func (m *smtpMailer) Send(ctx context.Context, to []string, files, names []string) error {
	addrs, password, err := m.resolve(ctx, to)
	if err != nil {
		return err
	}
	subject := fmt.Sprintf("calq: %s converted %s", names[0], time.Now().Format("2006-01-02 15:04"))
	return mail.Send(ctx, m.cfg.SMTP, password, mail.Message{To: addrs, Subject: subject,
		Body: "Converted by calq serve.\n", Attachments: files, Names: names})
}
