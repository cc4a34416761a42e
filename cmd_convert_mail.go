package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/convert/mail"
	"calq/internal/config"
)

// sendMail mails files to addrs with the config file's SMTP settings.
func sendMail(c *cli.Context, cfg config.Config, addrs, files []string, subject string) error {
	if cfg.SMTP.Host == "" {
		return errors.New("mail: no [smtp] host in the config file (see calq convert --help)")
	}
	password, err := cfg.SMTP.Password(os.Getenv)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	body := "Converted by calq:\n\n  " + strings.Join(names, "\n  ") + "\n"
	err = mail.Send(c.Context, cfg.SMTP, password, mail.Message{To: addrs, Subject: subject, Body: body, Attachments: files})
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	fmt.Fprintf(c.App.ErrWriter, "calq: mailed %s to %s\n", plural(len(files), "PDF"), strings.Join(addrs, ", "))
	return nil
}
