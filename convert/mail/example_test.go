package mail_test

import (
	"context"
	"log"
	"os"

	"calq/convert/mail"
	"calq/internal/config"
)

// Sending converted documents with the [smtp] table of calq's config
// file. (Not run: it needs a server.)
func ExampleSend() {
	c, err := config.Load("") // the default file; empty when missing
	if err != nil {
		log.Fatal(err)
	}
	password, err := c.SMTP.Password(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	err = mail.Send(context.Background(), c.SMTP, password, mail.Message{
		To:          []string{"boss@example.com"},
		Subject:     "Q3 reports",
		Body:        "Attached.",
		Attachments: []string{"out/q3.pdf"},
	})
	if err != nil {
		log.Fatal(err)
	}
}
