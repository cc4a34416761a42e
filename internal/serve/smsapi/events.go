package smsapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"calq/internal/kannel"
	"calq/sms/store"
)

// ReportWait is how long after a message was sent the Service waits for
// its status reports before it pushes its final state as "sent".
const ReportWait = 48 * time.Hour

// owed is one push: what it reports (key, once) and the request.
type owed struct {
	Key         string
	Method, URL string
	ContentType string
	Body        []byte
}

// events are the pushes message m owes to o's target as it is now, and
// whether m reached its final state (no more will come); reports says
// whether m asked the network for status reports.
func (s *Service) events(o owned, m Message, reports bool) ([]owed, bool, error) {
	final, state, reason := finalState(m, reports, s.now())
	var out []owed
	add := func(key string, e Event, kind int) error {
		p, err := pushOf(o, m, key, e, kind)
		if err == nil && p.URL != "" {
			out = append(out, p)
		}
		return err
	}
	for _, p := range m.Parts {
		if p.MR != nil {
			e := Event{Type: "sms.accepted", ID: m.ID, To: m.To, State: p.State, Part: p.Seq, MR: p.MR, Time: p.Updated}
			if err := add(fmt.Sprintf("%d/accepted/%d", m.ID, p.Seq), e, kannel.SMSCAccepted); err != nil {
				return nil, false, err
			}
		}
		for _, r := range p.Reports {
			e := Event{Type: "sms.report", ID: m.ID, To: m.To, State: r.Outcome, Report: &r, Time: r.Received}
			if err := add(fmt.Sprintf("%d/report/%d/%d", m.ID, p.Seq, r.Status), e, reportType(r.Outcome)); err != nil {
				return nil, false, err
			}
		}
	}
	if final {
		e := Event{Type: "sms.final", ID: m.ID, To: m.To, State: state, Reason: reason, Time: m.Updated}
		kind := 0 // Kannel has no type for the end itself: a rejection only
		if state == store.SMSFailed || state == store.SMSCancelled {
			kind = kannel.SMSCRejected
		}
		if err := add(fmt.Sprintf("%d/final", m.ID), e, kind); err != nil {
			return nil, false, err
		}
	}
	return out, final, nil
}

// finalState says whether m will change no more, and how it ended:
// failed, unknown or cancelled as the outbox says; sent, when it asked
// for no reports; else delivered or undelivered from its parts' reports,
// or sent when they did not come within ReportWait.
func finalState(m Message, reports bool, now time.Time) (bool, string, string) {
	switch {
	case m.State == store.SMSQueued:
		return false, "", ""
	case m.State != store.SMSSent:
		return true, m.State, m.Reason
	case !reports:
		return true, store.SMSSent, ""
	}
	for _, p := range m.Parts {
		r := lastReport(p)
		switch {
		case r == nil || r.Outcome == "pending":
			if now.Sub(m.Updated) < ReportWait {
				return false, "", ""
			}
			return true, store.SMSSent, "no final status report within " + ReportWait.String()
		case r.Outcome == "failed":
			return true, "undelivered", fmt.Sprintf("part %d: status report %d", p.Seq, r.Status)
		}
	}
	return true, "delivered", ""
}

func lastReport(p Part) *Report {
	if len(p.Reports) == 0 {
		return nil
	}
	return &p.Reports[len(p.Reports)-1]
}

// reportType is Kannel's dlr type of a report's outcome.
func reportType(outcome string) int {
	switch outcome {
	case "delivered":
		return kannel.Delivered
	case "pending":
		return kannel.Queued
	}
	return kannel.NotDelivered
}

// pushOf is the request that delivers e to o's target: a JSON POST, or
// for Kannel a GET of the expanded dlr-url when its mask has kind's bit
// (the zero owed when it has not).
func pushOf(o owned, m Message, key string, e Event, kind int) (owed, error) {
	switch {
	case o.Push == nil:
		return owed{}, nil
	case o.Push.Kind == PushKannel:
		if kind == 0 || o.Push.Mask&kind == 0 {
			return owed{}, nil
		}
		return owed{Key: key, Method: http.MethodGet, URL: kannel.Expand(o.Push.URL, dlrOf(m, e, kind))}, nil
	}
	b, err := json.Marshal(e)
	return owed{Key: key, Method: http.MethodPost, URL: o.Push.URL, ContentType: "application/json", Body: b}, err
}

// dlrOf fills Kannel's escape codes for e.
func dlrOf(m Message, e Event, kind int) kannel.DLR {
	d := kannel.DLR{Type: kind, To: m.To, Time: e.Time, ID: strconv.FormatInt(m.ID, 10), SMSCID: m.Modem, Text: m.Text,
		MClass: -1, User: m.User, SMSCReply: "ACK/"}
	if e.MR != nil {
		d.ForeignID = strconv.Itoa(*e.MR)
	}
	switch {
	case e.Report != nil:
		for _, p := range m.Parts { // %F is the reported part's reference, as for its acceptance
			if p.Seq == e.Report.Seq && p.MR != nil {
				d.ForeignID = strconv.Itoa(*p.MR)
			}
		}
		d.SMSCReply = fmt.Sprintf("stat:%s err:%03d", e.Report.Outcome, e.Report.Status)
	case kind == kannel.SMSCRejected:
		d.SMSCReply = "NACK/" + e.Reason
	}
	return d
}
