package mail

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"calq/internal/config"
	"calq/internal/smtptest"
)

// attachment is a file the tests attach: its base name and bytes.
type attachment struct {
	name, contentType string
	data              []byte
}

// writeAttachments writes atts into a new directory and returns their
// paths.
func writeAttachments(t *testing.T, atts []attachment) []string {
	dir := t.TempDir()
	var paths []string
	for _, a := range atts {
		p := filepath.Join(dir, a.name)
		must(t, os.WriteFile(p, a.data, 0o600))
		paths = append(paths, p)
	}
	return paths
}

// allBytes holds every byte value, and lines longer than base64's.
func allBytes() []byte {
	var b []byte
	for i := range 3000 {
		b = append(b, byte(i*7))
	}
	return b
}

func TestSend(t *testing.T) {
	srv := smtptest.Start(t, "")
	atts := []attachment{
		{"Q3 report.pdf", "application/pdf", append([]byte("%PDF-1.7\n"), allBytes()...)},
		{"été 2025 – résumé.pdf", "application/pdf", []byte("%PDF-1.4\n\x00\xff\r\n")},
		{"notes.unknownext", "application/octet-stream", []byte("plain\n")},
	}
	paths := writeAttachments(t, atts)
	m := Message{
		To:          []string{"boss@example.com", "Audit Team <audit@example.org>"},
		Subject:     "Rapport — été 2025",
		Body:        "Bonjour,\nvoici les rapports.\n",
		Attachments: paths,
	}
	for i, starttls := range []string{config.StartTLSNone, config.StartTLSOpportunistic} {
		t.Run(starttls, func(t *testing.T) {
			s := config.SMTP{Host: "127.0.0.1", Port: srv.Port, From: "Calq <calq@example.net>", StartTLS: starttls}
			must(t, Send(context.Background(), s, "", m))
			raws, envs := srv.Received(t)
			if len(raws) != i+1 {
				t.Fatalf("server received %d messages, want %d", len(raws), i+1)
			}
			want := smtptest.Envelope{MailFrom: "calq@example.net", RcptTos: []string{"boss@example.com", "audit@example.org"}}
			if !reflect.DeepEqual(envs[i], want) {
				t.Errorf("envelope = %+v, want %+v", envs[i], want)
			}
			checkMessage(t, raws[i], m, atts)
		})
	}
}

// checkMessage parses raw as a mail client would and checks its headers,
// body and attachments against m and atts.
func checkMessage(t *testing.T, raw []byte, m Message, atts []attachment) {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	must(t, err)
	if from, err := msg.Header.AddressList("From"); err != nil || len(from) != 1 ||
		from[0].Address != "calq@example.net" || from[0].Name != "Calq" {
		t.Errorf("From = %v, %v, want Calq <calq@example.net>", from, err)
	}
	to, err := msg.Header.AddressList("To")
	if err != nil || len(to) != 2 || to[0].Address != "boss@example.com" ||
		to[1].Address != "audit@example.org" || to[1].Name != "Audit Team" {
		t.Errorf("To = %v, %v, want %q", to, err, m.To)
	}
	if subj, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); subj != m.Subject {
		t.Errorf("Subject = %q, %v, want %q", subj, err, m.Subject)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("Content-Type = %q, %v, want multipart/mixed", mt, err)
	}
	parts := multipart.NewReader(msg.Body, params["boundary"])
	body, err := parts.NextPart() // quoted-printable, which NextPart decodes
	must(t, err)
	if b, _ := io.ReadAll(body); strings.ReplaceAll(string(b), "\r\n", "\n") != m.Body {
		t.Errorf("body = %q, want %q", b, m.Body)
	}
	for _, want := range atts {
		p, err := parts.NextPart()
		if err != nil {
			t.Fatalf("attachment %q: %v", want.name, err)
		}
		checkAttachment(t, p, want)
	}
	if p, err := parts.NextPart(); err != io.EOF {
		t.Errorf("after the attachments: part %v, error %v, want io.EOF", p.Header, err)
	}
}

func checkAttachment(t *testing.T, p *multipart.Part, want attachment) {
	t.Helper()
	name, err := new(mime.WordDecoder).DecodeHeader(p.FileName())
	if err != nil || name != want.name {
		t.Errorf("attachment name = %q, %v, want %q", name, err, want.name)
	}
	if d, _, _ := mime.ParseMediaType(p.Header.Get("Content-Disposition")); d != "attachment" {
		t.Errorf("%s: Content-Disposition %q, want attachment", want.name, d)
	}
	if ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); ct != want.contentType {
		t.Errorf("%s: Content-Type %q, want %q", want.name, ct, want.contentType)
	}
	if enc := p.Header.Get("Content-Transfer-Encoding"); enc != "base64" {
		t.Fatalf("%s: Content-Transfer-Encoding %q, want base64", want.name, enc)
	}
	data, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, p))
	if err != nil || !bytes.Equal(data, want.data) {
		t.Errorf("%s: %d bytes, %v; want the %d bytes of the file", want.name, len(data), err, len(want.data))
	}
}

func TestSendAuth(t *testing.T) {
	srv := smtptest.Start(t, "calq:s3cret pass")
	s := config.SMTP{Host: "127.0.0.1", Port: srv.Port, From: "calq@example.net", Username: "calq",
		StartTLS: config.StartTLSNone}
	m := Message{To: []string{"boss@example.com"}, Subject: "hi", Body: "hello"}

	err := Send(context.Background(), s, "wrong", m)
	if err == nil || !strings.Contains(err.Error(), "535") {
		t.Errorf("Send() with a wrong password error = %v, want the server's 535", err)
	}
	if raws, _ := srv.Received(t); len(raws) != 0 {
		t.Errorf("server received %d messages after a failed login, want 0", len(raws))
	}

	must(t, Send(context.Background(), s, "s3cret pass", m))
	if _, envs := srv.Received(t); len(envs) != 1 || !envs[0].Authenticated {
		t.Errorf("envelopes = %+v, want one, authenticated", envs)
	}
}

// TestSendMandatoryTLS sends to a server without STARTTLS: the default
// policy refuses it before any message goes out.
func TestSendMandatoryTLS(t *testing.T) {
	srv := smtptest.Start(t, "")
	for _, starttls := range []string{"", config.StartTLSMandatory} {
		s := config.SMTP{Host: "127.0.0.1", Port: srv.Port, From: "calq@example.net", StartTLS: starttls}
		err := Send(context.Background(), s, "", Message{To: []string{"boss@example.com"}})
		if err == nil || !strings.Contains(err.Error(), "does not support STARTTLS") {
			t.Errorf("Send(starttls %q) error = %v, want STARTTLS refused", starttls, err)
		}
	}
	if raws, _ := srv.Received(t); len(raws) != 0 {
		t.Errorf("server received %d messages, want 0", len(raws))
	}
}

func TestSendInvalid(t *testing.T) {
	paths := writeAttachments(t, []attachment{{name: "a.pdf", data: []byte("%PDF")}})
	dir := filepath.Dir(paths[0])
	ok := config.SMTP{Host: "127.0.0.1", Port: 1, From: "calq@example.net", StartTLS: "none"}
	to := []string{"boss@example.com"}
	tests := []struct {
		name string
		s    config.SMTP
		m    Message
		want string
	}{
		{"no host", config.SMTP{From: "a@example.net"}, Message{To: to},
			"send mail to boss@example.com via :587: no SMTP host (smtp.host in the config file)"},
		{"no sender", config.SMTP{Host: "h"}, Message{To: to},
			"send mail to boss@example.com via h:587: no sender address (smtp.from in the config file)"},
		{"no recipient", ok, Message{}, "send mail via 127.0.0.1:1: no recipient"},
		{"bad recipient", ok, Message{To: []string{"boss"}}, `send mail to boss via 127.0.0.1:1: recipients: ` +
			`failed to parse mail address "boss": mail: missing '@' or angle-addr`},
		{"missing attachment", ok, Message{To: to, Attachments: []string{dir + "/nope.pdf"}},
			"send mail to boss@example.com via 127.0.0.1:1: attachment: stat " + dir + "/nope.pdf: no such file or directory"},
		{"directory attachment", ok, Message{To: to, Attachments: []string{dir}},
			"send mail to boss@example.com via 127.0.0.1:1: attachment " + dir + ": not a regular file"},
		{"bad policy", config.SMTP{Host: "h", From: "a@example.net", StartTLS: "always"}, Message{To: to},
			`send mail to boss@example.com via h:587: unknown STARTTLS policy "always" (want mandatory, opportunistic, none)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Send(context.Background(), tt.s, "", tt.m)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Send() error = %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestSendCancelled cancels Send while a server that never answers holds
// it: Send returns the context's error.
func TestSendCancelled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c // silent: no greeting ever
		}
		close(accepted)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	s := config.SMTP{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, From: "calq@example.net",
		StartTLS: config.StartTLSNone}
	go func() { done <- Send(ctx, s, "", Message{To: []string{"boss@example.com"}}) }()
	c := <-accepted
	if c == nil {
		t.Fatal("accept failed")
	}
	defer c.Close()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Send() error = %v, want context.Canceled", err)
	}

	// Already done: nothing is dialled.
	if err := Send(ctx, s, "", Message{To: []string{"boss@example.com"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Send(done ctx) error = %v, want context.Canceled", err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSendNames: two PDFs of one base name from different directories
// go out under the names given, not twice as report.pdf.
func TestSendNames(t *testing.T) {
	srv := smtptest.Start(t, "")
	dir := t.TempDir()
	var paths []string
	atts := []attachment{{"a_report.pdf", "application/pdf", []byte("%PDF-1.7\na\n")}, {"b_report.pdf", "application/pdf", []byte("%PDF-1.7\nb\n")}}
	for i, sub := range []string{"a", "b"} {
		p := filepath.Join(dir, sub, "report.pdf")
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, atts[i].data, 0o644))
		paths = append(paths, p)
	}
	m := Message{To: []string{"boss@example.com", "Audit Team <audit@example.org>"}, Subject: "two reports",
		Body: "two\n", Attachments: paths, Names: []string{"a_report.pdf", "b_report.pdf"}}
	s := config.SMTP{Host: "127.0.0.1", Port: srv.Port, From: "Calq <calq@example.net>", StartTLS: config.StartTLSNone}
	must(t, Send(context.Background(), s, "", m))
	raws, _ := srv.Received(t)
	if len(raws) != 1 {
		t.Fatalf("server received %d messages, want 1", len(raws))
	}
	checkMessage(t, raws[0], m, atts)
	bad := m
	bad.Names = []string{"only-one.pdf"}
	if err := Send(context.Background(), s, "", bad); err == nil || !strings.Contains(err.Error(), "1 attachment names for 2") {
		t.Errorf("Send with 1 name for 2 files = %v, want an error", err)
	}
}
