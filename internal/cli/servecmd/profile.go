package servecmd

import (
	"context"
	"fmt"
	"os"

	"calq/convert/contacts"
	"calq/convert/mail"
	"calq/internal/config"
	"calq/internal/serve"
	"calq/sched/journal"
)

// configProfiles returns the conversion defaults of the config file's
// profiles, by name: what a user's requests get unless their form says
// otherwise.
func configProfiles(cfg config.Config) func(name string) (serve.Task, error) {
	return func(name string) (serve.Task, error) {
		p, err := cfg.Profile(name)
		if err != nil {
			return serve.Task{}, err
		}
		return serve.TaskFromProfile(p, config.ReadSecret)
	}
}

// mailer sends results through the config file's [smtp] server to the
// contacts of the job owner's book in the journal (the local book when
// calq serve has no users) or to addresses; nil without a server.
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

func (m *smtpMailer) resolve(ctx context.Context, owner string, to []string) ([]string, string, error) {
	book, err := contacts.Open(ctx, m.j)
	if err != nil {
		return nil, "", err
	}
	addrs, err := book.Owner(owner).ResolveRecipients(ctx, to)
	if err != nil {
		return nil, "", err
	}
	password, err := m.cfg.SMTP.Password(os.Getenv)
	return addrs, password, err
}

func (m *smtpMailer) Check(ctx context.Context, owner string, to []string) error {
	_, _, err := m.resolve(ctx, owner, to)
	return err
}

func (m *smtpMailer) Send(ctx context.Context, owner string, to, files, names []string) error {
	addrs, password, err := m.resolve(ctx, owner, to)
	if err != nil {
		return err
	}
	// The attachment's name says what and, for several files, the day;
	// the mail's own Date header says when.
	subject := "calq: " + names[0]
	if len(names) > 1 {
		subject += fmt.Sprintf(" and %d more", len(names)-1)
	}
	return mail.Send(ctx, m.cfg.SMTP, password, mail.Message{To: addrs, Subject: subject,
		Body: "Converted by calq serve.\n", Attachments: files, Names: names})
}
