// Package mail sends calq's converted documents by email through the SMTP
// server of calq's config file.
//
// Send is the one entry point: it dials, says EHLO, applies the STARTTLS
// policy, authenticates when a username is set, sends one message with
// its attachments and quits. It costs one connection per call and reads
// each attachment once, streaming it; it keeps no state, so concurrent
// calls are safe. A server that stops answering fails Send after 30 s
// plus a second per 128 KiB of attachments; ctx ends it at any point.
// Messages are built and spoken by github.com/wneessen/go-mail.
//
// Over Send, a Delivery (from Prepare) mails what one calq convert run
// wrote: Finish delivers it, or holds it for the next run when the run
// was interrupted.
package mail

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"calq/internal/config"
)

// DefaultPort is the port Send uses when config.SMTP.Port is zero: the
// submission port.
const DefaultPort = 587

// Message is one email. To holds addresses (resolve contact names first);
// Attachments are paths of files, attached under their base names, or
// under Names when set (one per attachment, so that two files of one base
// name stay apart).
type Message struct {
	To          []string
	Subject     string
	Body        string // plain text
	Attachments []string
	Names       []string
}

// Send sends m through the server s describes. password is used only
// when s.Username is set; with it, Send authenticates with PLAIN or LOGIN
// (go-mail refuses both on an unencrypted connection except to
// localhost). s.StartTLS is config.StartTLSMandatory when empty. When ctx
// is done, Send closes the connection, whatever it was doing, and returns
// ctx's error.
func Send(ctx context.Context, s config.SMTP, password string, m Message) error {
	addr := net.JoinHostPort(s.Host, strconv.Itoa(port(s)))
	if err := send(ctx, s, password, m); err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		to := ""
		if len(m.To) > 0 {
			to = " to " + strings.Join(m.To, ", ")
		}
		return fmt.Errorf("send mail%s via %s: %w", to, addr, err)
	}
	return nil
}

func send(ctx context.Context, s config.SMTP, password string, m Message) error {
	msg, size, err := message(s.From, m)
	if err != nil {
		return err
	}
	// go-mail's context covers the dial only; closing the connection
	// when ctx is done ends whatever comes after.
	var stops []func() bool
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	dial := func(dialCtx context.Context, network, addr string) (net.Conn, error) {
		// dialCtx ends with the dial, ctx with Send.
		conn, err := new(net.Dialer).DialContext(dialCtx, network, addr)
		if err == nil {
			stops = append(stops, context.AfterFunc(ctx, func() { conn.Close() }))
		}
		return conn, err
	}
	c, err := client(s, password, dial, timeout(size))
	if err != nil {
		return err
	}
	return c.DialAndSendWithContext(ctx, msg)
}

func port(s config.SMTP) int {
	if s.Port == 0 {
		return DefaultPort
	}
	return s.Port
}

// timeout bounds each step of the conversation, and go-mail counts
// sending the whole message as one: it allows for an uplink as slow as
// minRate. A dead server costs at most that; ctx ends any step sooner.
func timeout(size int64) time.Duration {
	const minRate = 128 << 10 // bytes a second
	return 30*time.Second + time.Duration(size/minRate)*time.Second
}

// client makes a go-mail client for s that connects with dial.
func client(s config.SMTP, password string, dial gomail.DialContextFunc, timeout time.Duration) (*gomail.Client, error) {
	if s.Host == "" {
		return nil, errors.New("no SMTP host (smtp.host in the config file)")
	}
	policy, err := tlsPolicy(s.StartTLS)
	if err != nil {
		return nil, err
	}
	opts := []gomail.Option{gomail.WithPort(port(s)), gomail.WithTLSPolicy(policy),
		gomail.WithDialContextFunc(dial), gomail.WithTimeout(timeout)}
	if s.Username != "" {
		opts = append(opts, gomail.WithUsername(s.Username), gomail.WithPassword(password),
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin))
	}
	return gomail.NewClient(s.Host, opts...)
}

func tlsPolicy(starttls string) (gomail.TLSPolicy, error) {
	switch starttls {
	case "", config.StartTLSMandatory:
		return gomail.TLSMandatory, nil
	case config.StartTLSOpportunistic:
		return gomail.TLSOpportunistic, nil
	case config.StartTLSNone:
		return gomail.NoTLS, nil
	}
	return 0, fmt.Errorf("unknown STARTTLS policy %q (want %s)", starttls, strings.Join(config.StartTLSPolicies, ", "))
}

// message builds m from from, checking that its attachments are regular
// files (go-mail would leave a missing one out silently) and returning
// their total size.
func message(from string, m Message) (msg *gomail.Msg, size int64, err error) {
	if from == "" {
		return nil, 0, errors.New("no sender address (smtp.from in the config file)")
	}
	if len(m.To) == 0 {
		return nil, 0, errors.New("no recipient")
	}
	msg = gomail.NewMsg()
	if err := msg.From(from); err != nil {
		return nil, 0, fmt.Errorf("sender %q: %w", from, err)
	}
	if err := msg.To(m.To...); err != nil {
		return nil, 0, fmt.Errorf("recipients: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	msg.SetUserAgent("calq")
	if len(m.Names) > 0 && len(m.Names) != len(m.Attachments) {
		return nil, 0, fmt.Errorf("%d attachment names for %d attachments", len(m.Names), len(m.Attachments))
	}
	for i, path := range m.Attachments {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, 0, fmt.Errorf("attachment: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return nil, 0, fmt.Errorf("attachment %s: not a regular file", path)
		}
		size += fi.Size()
		opts := []gomail.FileOption{gomail.WithFileContentType(contentType(path))}
		if len(m.Names) > 0 {
			opts = append(opts, gomail.WithFileName(m.Names[i]))
		}
		msg.AttachFile(path, opts...)
	}
	return msg, size, nil
}

// contentType is the MIME type of an attachment, from its extension.
func contentType(path string) gomail.ContentType {
	if t := mime.TypeByExtension(filepath.Ext(path)); t != "" {
		if mt, _, err := mime.ParseMediaType(t); err == nil {
			return gomail.ContentType(mt)
		}
	}
	return gomail.TypeAppOctetStream
}
