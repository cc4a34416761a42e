package smsapi

import (
	"context"
	"errors"
	"fmt"

	"calq/internal/serve/users"
	"calq/sms"
	"calq/sms/store"
)

// Get returns message id if u may see it (its sender, or an
// administrator); ErrNotFound otherwise.
func (s *Service) Get(ctx context.Context, u users.User, id int64) (Message, error) {
	o, err := s.visible(ctx, u, id)
	if err != nil {
		return Message{}, err
	}
	m, err := s.box.SMS(ctx, id)
	if errors.Is(err, store.ErrNoSMS) {
		return Message{}, ErrNotFound
	}
	if err != nil {
		return Message{}, err
	}
	return s.message(ctx, o, m)
}

// visible returns who sent message id, if u may see it: its sender, or
// an administrator (who also sees messages sent by calq sms send).
func (s *Service) visible(ctx context.Context, u users.User, id int64) (owned, error) {
	o, ok, err := s.owner(ctx, id)
	switch {
	case err != nil:
		return o, err
	case u.Admin && u.Name != "":
		if !ok {
			o = owned{ID: id}
		}
		return o, nil
	case !ok || o.User != u.Name || u.Name == "":
		return o, ErrNotFound // never 403: whether it exists is not u's to know
	}
	return o, nil
}

// message is m as the API shows it, with its parts' status reports.
func (s *Service) message(ctx context.Context, o owned, m store.SMSMessage) (Message, error) {
	out := Message{ID: m.ID, User: o.User, To: m.To, Text: m.Text, State: m.State, Reason: m.Reason, Modem: m.Modem,
		Created: m.Created, NotBefore: m.NotBefore, Updated: m.Updated, Push: o.Push, Parts: make([]Part, len(m.Parts))}
	for i, p := range m.Parts {
		out.Parts[i] = Part{Seq: p.Seq, State: p.State, Modem: p.Modem, Reason: p.Reason, Updated: p.Updated, Reports: []Report{}}
		if p.MR >= 0 {
			out.Parts[i].MR = &p.MR
		}
	}
	reports, err := sms.Reports(ctx, s.box, m)
	if err != nil {
		return out, fmt.Errorf("sms %d: reports: %w", m.ID, err)
	}
	for _, r := range reports {
		rep, err := s.report(ctx, r)
		if err != nil {
			return out, err
		}
		for i := range out.Parts {
			if out.Parts[i].Seq == r.Seq {
				out.Parts[i].Reports = append(out.Parts[i].Reports, rep)
			}
		}
	}
	return out, nil
}

// report is r with the time calq received it.
func (s *Service) report(ctx context.Context, r sms.PartReport) (Report, error) {
	rep := Report{Seq: r.Seq, Status: r.Status, Outcome: r.Outcome, Discharged: r.Discharged}
	es, err := s.box.InboxEntries(ctx, store.InboxFilter{After: r.ReportID - 1, Limit: 1})
	if err != nil {
		return rep, err
	}
	if len(es) == 1 && es[0].ID == r.ReportID {
		rep.Received = es[0].Received
	}
	return rep, nil
}

// Cancel cancels message id if no part of it is with a modem yet
// (ErrNotPending otherwise) and returns it as it is then.
func (s *Service) Cancel(ctx context.Context, u users.User, id int64) (Message, error) {
	if _, err := s.visible(ctx, u, id); err != nil {
		return Message{}, err
	}
	ok, err := s.box.CancelSMS(ctx, id)
	if errors.Is(err, store.ErrNoSMS) {
		return Message{}, ErrNotFound
	}
	if err != nil {
		return Message{}, err
	}
	m, err := s.Get(ctx, u, id)
	if err != nil {
		return m, err
	}
	if !ok && m.State != store.SMSCancelled {
		return m, fmt.Errorf("%w: message %d is %s", ErrNotPending, id, m.State)
	}
	s.Wake() // its final state is owed to its push target
	return m, nil
}
