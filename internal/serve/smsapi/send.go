package smsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"calq/internal/kannel"
	"calq/internal/serve/users"
	"calq/sched"
	"calq/sms"
	"calq/sms/pdu"
	"calq/sms/store"
)

// Send checks r against u's rights, rate and quota and the recipients
// and text, and records one message per recipient in the outbox (and
// its push target in the Service's table) before it returns; nothing is
// recorded when any check fails.
func (s *Service) Send(ctx context.Context, u users.User, r Request) ([]Accepted, error) {
	rights, err := s.allowed(ctx, u)
	if err != nil {
		return nil, err
	}
	msgs, push, err := s.compose(ctx, u, r)
	if err != nil {
		return nil, err
	}
	seqs, err := s.reserve(ctx, u.Name, len(msgs), cmpOr(rights.Rate, s.opts.Rate), cmpOr(rights.Quota, s.opts.Quota), push)
	if err != nil {
		return nil, err
	}
	for i := range msgs {
		msgs[i].Options = withSeq(msgs[i].Options, seqs[i])
	}
	ids, err := s.box.AddSMS(ctx, msgs)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%w: %w", sms.ErrNotRecorded, err), s.unreserve(context.WithoutCancel(ctx), seqs))
	}
	if err := s.bind(context.WithoutCancel(ctx), seqs, ids); err != nil {
		return nil, err
	}
	if push != "" { // a message without one owes no push: no round for it
		s.sends.Add(1)
		s.watched.Add(int64(len(ids)))
		s.Wake()
	}
	out := make([]Accepted, len(msgs))
	for i, m := range msgs {
		out[i] = Accepted{ID: ids[i], To: m.To, Parts: len(m.Parts), State: "queued"}
		if m.NotBefore.After(s.now()) {
			out[i].State = "scheduled"
		}
	}
	return out, nil
}

// allowed returns u's rights if u may send; ErrNotAllowed otherwise.
func (s *Service) allowed(ctx context.Context, u users.User) (users.SMSRights, error) {
	if u.Name == "" {
		// A server without users lets anyone in; sending costs money.
		return users.SMSRights{}, fmt.Errorf("%w: calq serve has no users; add one and give it the right: calq users add NAME; calq users set NAME --sms", ErrNotAllowed)
	}
	r, err := s.opts.Rights.SMSRights(ctx, u.Name)
	if err != nil {
		return r, err
	}
	if !r.Allowed {
		return r, fmt.Errorf("%w: user %s was not given the right; an administrator gives it with: calq users set %s --sms", ErrNotAllowed, u.Name, u.Name)
	}
	return r, nil
}

// compose checks r and encodes its messages, not yet recorded, and the
// push target as the table keeps it.
func (s *Service) compose(ctx context.Context, u users.User, r Request) ([]store.SMSMessage, string, error) {
	to, err := s.recipients(ctx, u, r.To)
	if err != nil {
		return nil, "", err
	}
	o, err := sendOptions(r)
	if err != nil {
		return nil, "", err
	}
	push, err := s.checkPush(r.Push)
	if err != nil {
		return nil, "", err
	}
	if r.Push.Kind == PushJSON {
		o.Report = true // a report URL is for the reports (a Kannel client says with its mask)
	}
	if strings.TrimSpace(r.Text) == "" {
		return nil, "", &InputError{Field: "text", Value: r.Text, Err: errors.New("is empty")}
	}
	msgs, _, err := sms.Compose(to, r.Text, o)
	if err != nil {
		return nil, "", &InputError{Field: "text", Value: clip(r.Text), Err: err}
	}
	return msgs, push, nil
}

// recipients normalizes to: numbers as they are, other names through
// the user's address book.
func (s *Service) recipients(ctx context.Context, u users.User, to []string) ([]string, error) {
	switch {
	case len(to) == 0:
		return nil, &InputError{Field: "to", Err: errors.New("names no recipient")}
	case len(to) > MaxRecipients:
		return nil, &InputError{Field: "to", Value: fmt.Sprintf("%d recipients", len(to)), Err: fmt.Errorf("is more than %d", MaxRecipients)}
	}
	out := make([]string, 0, len(to))
	for _, t := range to {
		n, err := s.recipient(ctx, u, t)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func (s *Service) recipient(ctx context.Context, u users.User, t string) (string, error) {
	n, err := sms.NormalizeNumber(t)
	if err == nil {
		return n, nil
	}
	if s.opts.Book == nil || looksNumeric(t) {
		return "", &InputError{Field: "to", Value: t, Err: err}
	}
	ns, berr := s.opts.Book.ResolvePhones(ctx, u.Name, []string{t})
	if berr != nil || len(ns) != 1 {
		return "", &InputError{Field: "to", Value: t, Err: fmt.Errorf("is neither a number (%v) nor a contact with a phone number: %w", err, berr)}
	}
	if n, err = sms.NormalizeNumber(ns[0]); err != nil {
		return "", &InputError{Field: "to", Value: t, Err: fmt.Errorf("contact's number: %w", err)}
	}
	return n, nil
}

// looksNumeric says t was meant as a number (digits, +, spaces and
// punctuation only), so a bad one is not looked up as a name.
func looksNumeric(t string) bool {
	return strings.TrimLeft(t, "+0123456789 -()./") == ""
}

// sendOptions reads r's options as sms.Compose takes them.
func sendOptions(r Request) (sms.SendOptions, error) {
	o := sms.SendOptions{Flash: r.Flash, Report: r.Report, Transliterate: r.Transliterate, At: r.At, Coding: r.Coding}
	if r.Validity != 0 {
		if _, err := pdu.ValidityPeriod(r.Validity); err != nil {
			return o, &InputError{Field: "validity", Value: r.Validity.String(), Err: err}
		}
		o.Validity = r.Validity
	}
	if r.Priority != "" {
		c, err := sched.ParseClass(r.Priority)
		if err != nil {
			return o, &InputError{Field: "priority", Value: r.Priority, Err: errors.New("is not P0, P1, P2 or P3")}
		}
		o.Priority = c
	}
	if r.Coding != "" && r.Coding != "gsm7" && r.Coding != "8bit" && r.Coding != "ucs2" {
		return o, &InputError{Field: "coding", Value: r.Coding, Err: errors.New(`is not "gsm7", "8bit" or "ucs2"`)}
	}
	return o, nil
}

// checkPush checks p and returns it as the table keeps it ("" none).
func (s *Service) checkPush(p Push) (string, error) {
	field := "reportUrl"
	switch p.Kind {
	case PushNone:
		if p.URL != "" {
			return "", &InputError{Field: field, Value: p.URL, Err: errors.New("has no push kind")}
		}
		return "", nil
	case PushKannel:
		field = "dlr-url"
	case PushJSON:
	default:
		return "", &InputError{Field: "push", Value: p.Kind, Err: errors.New("is not json or kannel")}
	}
	if s.opts.NoPush {
		return "", &InputError{Field: field, Value: p.URL, Err: errors.New("is not called: calq serve was started with --no-webhooks")}
	}
	u, err := url.Parse(p.URL)
	if p.Kind == PushKannel {
		u, err = kannel.Target(p.URL) // its codes are no URL escapes; its scheme and host are every report's
	}
	if err == nil && (u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
		err = errors.New("is not an absolute http or https URL")
	}
	if err == nil {
		err = s.opts.Policy.Check(u)
	}
	if err != nil {
		return "", &InputError{Field: field, Value: p.URL, Err: err}
	}
	b, err := json.Marshal(p)
	return string(b), err
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// clip shortens a long value for an error message.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
