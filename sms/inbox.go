package sms

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"calq/sms/pdu"
	"calq/sms/store"
)

// Inbound is a received message or status report, as Receive hands it
// out. Its JSON form holds every field but Kind: a caller that prints it
// says what it is (calq sms recv --json puts Kind first, as message_type).
type Inbound struct {
	Kind     string    `json:"-"`  // store.KindMessage or store.KindReport
	ID       int64     `json:"id"` // the journal's id, unique across messages and reports
	Modem    string    `json:"modem"`
	From     string    `json:"from"`           // message: the sender; report: the recipient of the message it answers
	Text     string    `json:"text,omitempty"` // message: the parts' texts in order (missing ones left out)
	Sent     time.Time `json:"sent"`           // service centre time stamp, in the sender's zone
	Received time.Time `json:"received"`       // when calq filed it
	Parts    int       `json:"parts"`          // parts present
	Total    int       `json:"total"`          // parts announced
	Missing  []int     `json:"missing,omitempty"`
	// Status reports only.
	MR         int       `json:"mr,omitempty"`        // message reference of the message it answers
	Status     int       `json:"status,omitempty"`    // TP-ST
	Outcome    string    `json:"outcome,omitempty"`   // "delivered", "pending" or "failed", from Status
	Discharged time.Time `json:"discharged,omitzero"` // when the message was delivered or given up
}

// MarshalJSON writes a report's mr and status even when they are 0 (a
// valid reference; "delivered"), and leaves them out of a message's.
func (in Inbound) MarshalJSON() ([]byte, error) {
	type plain Inbound
	if in.Kind != store.KindReport {
		return json.Marshal(plain(in))
	}
	return json.Marshal(struct {
		plain
		MR     int `json:"mr"`
		Status int `json:"status"`
	}{plain(in), in.MR, in.Status})
}

// Complete reports whether every part of the message is present.
func (in Inbound) Complete() bool { return len(in.Missing) == 0 }

// ReportOutcome names a TP-Status (3GPP 23.040 9.2.3.15): 0-31 the message was
// delivered, 32-63 the service centre still tries, above it failed.
func ReportOutcome(st int) string {
	switch {
	case st >= 0 && st < 32:
		return "delivered"
	case st >= 32 && st < 64:
		return "pending"
	}
	return "failed"
}

func inboxInbound(e store.InboxEntry) Inbound {
	in := Inbound{Kind: e.Kind, ID: e.ID, Modem: e.Modem, From: e.Sender, Text: e.Text,
		Sent: e.SCTS, Received: e.Received, Parts: e.Parts, Total: e.Total, Missing: e.Missing}
	if e.Kind == store.KindReport {
		in.MR, in.Status, in.Outcome, in.Discharged = e.MR, e.ST, ReportOutcome(e.ST), e.DT
	}
	return in
}

// Inbox is what receiving needs of the inbox: the raw PDUs as the modems
// listed them, parts waiting for the others, and the entries handed out.
// *store.Store keeps it in the journal's file; store.Mem in memory.
type Inbox interface {
	RecordInboxPDUs(ctx context.Context, modem string, listed []store.InboxSlot, at time.Time) ([]store.InboxPDU, error)
	MarkInboxDeleted(ctx context.Context, id int64, at time.Time) error
	UnfiledInboxPDUs(ctx context.Context) ([]store.InboxPDU, error)
	SetInboxPDUState(ctx context.Context, id int64, state, reason string) error
	HoldInboxPart(ctx context.Context, p store.InboxPart) error
	InboxParts(ctx context.Context) ([]store.InboxPart, error)
	AddInboxEntry(ctx context.Context, e store.InboxEntry, pduIDs []int64) (int64, error)
	NewInboxEntries(ctx context.Context) ([]store.InboxEntry, error)
	MarkInboxDelivered(ctx context.Context, id int64, at time.Time) error
	MatchReport(ctx context.Context, modem string, mr int, ra string, since time.Time) (e store.InboxEntry, ok bool, err error)
}

// inboxFileAll decodes the recorded PDUs not yet filed (this run's and those
// an interrupted run left) and files each: a message, a part to wait for
// the others, a status report, or bad. Undecodable PDUs are kept in the
// journal and reported to warn; they stop nothing.
func inboxFileAll(ctx context.Context, j Inbox, now time.Time, warn func(error)) error {
	ps, err := j.UnfiledInboxPDUs(ctx)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := inboxFilePDU(ctx, j, p, now, warn); err != nil {
			return err
		}
	}
	return nil
}

func inboxFilePDU(ctx context.Context, j Inbox, p store.InboxPDU, now time.Time, warn func(error)) error {
	m, err := pdu.Decode(p.PDU, pdu.MT)
	if err != nil {
		warn(fmt.Errorf("modem %s: PDU %d (slot %d) kept in the journal: %w", p.Modem, p.ID, p.Slot, err))
		return j.SetInboxPDUState(ctx, p.ID, "bad", err.Error())
	}
	switch {
	case m.Type == "STATUS-REPORT":
		e := store.InboxEntry{Kind: store.KindReport, Modem: p.Modem, Sender: m.RA, SCTS: m.SCTS,
			Received: now, MR: m.MR, ST: m.ST, DT: m.DT}
		_, err = j.AddInboxEntry(ctx, e, []int64{p.ID})
	case m.Type != "DELIVER":
		err = j.SetInboxPDUState(ctx, p.ID, "skipped", "a "+m.Type+" is not for the inbox")
	case inboxIsPart(m.Concat):
		err = j.HoldInboxPart(ctx, store.InboxPart{PDUID: p.ID, Modem: p.Modem, Sender: m.OA,
			Ref: m.Concat.Ref, Total: m.Concat.Total, Seq: m.Concat.Seq, Text: inboxText(m), SCTS: m.SCTS})
	default:
		e := store.InboxEntry{Kind: store.KindMessage, Modem: p.Modem, Sender: m.OA, Text: inboxText(m),
			SCTS: m.SCTS, Received: now, Parts: 1, Total: 1}
		_, err = j.AddInboxEntry(ctx, e, []int64{p.ID})
	}
	return err
}

// inboxIsPart tells a part of a long message from a message whose header is
// absent or nonsense (a total of 1, or a number outside 1..total), which
// is taken whole, as gammu does.
func inboxIsPart(c *pdu.Concat) bool {
	return c != nil && c.Total > 1 && c.Seq >= 1 && c.Seq <= c.Total
}

// inboxText is a DELIVER's text; 8-bit data, which has none, is shown as hex.
// A NUL (UCS-2 allows one) becomes U+FFFD: PostgreSQL's text cannot hold
// it, so it would fail the message there and stay on the SIM, and SQLite
// would differ; the stored PDU keeps the original.
func inboxText(m pdu.Message) string {
	if m.Text == "" && len(m.Data) > 0 {
		return hex.EncodeToString(m.Data)
	}
	return strings.ReplaceAll(m.Text, "\x00", "\uFFFD")
}

// inboxPartKey is what the parts of one long message share.
type inboxPartKey struct {
	modem, sender string
	ref, total    int
}

// inboxAssemble turns the waiting parts into messages: a group with every
// part, or whose first part came more than timeout before now, which is
// then delivered as it is, naming the missing parts. A part that came
// twice (a network's resend) counts once.
func inboxAssemble(ctx context.Context, j Inbox, now time.Time, timeout time.Duration) error {
	ps, err := j.InboxParts(ctx)
	if err != nil {
		return err
	}
	groups := map[inboxPartKey][]store.InboxPart{}
	var order []inboxPartKey
	for _, p := range ps {
		k := inboxPartKey{p.Modem, p.Sender, p.Ref, p.Total}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], p)
	}
	var errs []error
	for _, k := range order {
		if e, ids, ok := inboxReassemble(groups[k], now, timeout); ok {
			if _, err := j.AddInboxEntry(ctx, e, ids); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// inboxReassemble makes the message of one group of parts, sorted by number;
// ok is false while it should wait for more.
func inboxReassemble(parts []store.InboxPart, now time.Time, timeout time.Duration) (e store.InboxEntry, ids []int64, ok bool) {
	first := parts[0]
	total := first.Total
	bySeq := make(map[int]store.InboxPart, total)
	oldest := first.Received
	for _, p := range parts {
		ids = append(ids, p.PDUID)
		if _, dup := bySeq[p.Seq]; !dup {
			bySeq[p.Seq] = p
		}
		if p.Received.Before(oldest) {
			oldest = p.Received
		}
	}
	if len(bySeq) < total && now.Sub(oldest) < timeout {
		return e, nil, false
	}
	e = store.InboxEntry{Kind: store.KindMessage, Modem: first.Modem, Sender: first.Sender,
		Received: now, Parts: len(bySeq), Total: total}
	for seq := 1; seq <= total; seq++ {
		p, ok := bySeq[seq]
		if !ok {
			e.Missing = append(e.Missing, seq)
			continue
		}
		if e.SCTS.IsZero() {
			e.SCTS = p.SCTS
		}
		e.Text += p.Text
	}
	return e, ids, true
}

// PartReport is the status report matched to one accepted part of a sent
// message.
type PartReport struct {
	Seq        int       `json:"seq"`
	ReportID   int64     `json:"report_id"` // the report's inbox id
	Status     int       `json:"status"`    // TP-ST
	Outcome    string    `json:"outcome"`   // delivered, pending or failed
	Discharged time.Time `json:"discharged,omitzero"`
}

// Reports returns the status reports received so far for m's accepted
// parts, matched by modem, message reference and recipient (see
// journal.MatchReport), in part order; parts with none are left out.
func Reports(ctx context.Context, jn Inbox, m store.SMSMessage) ([]PartReport, error) {
	var out []PartReport
	for _, p := range m.Parts {
		if p.State != store.SMSAccepted || p.MR < 0 {
			continue
		}
		e, ok, err := jn.MatchReport(ctx, p.Modem, p.MR, m.To, p.Updated)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, PartReport{Seq: p.Seq, ReportID: e.ID, Status: e.ST, Outcome: ReportOutcome(e.ST), Discharged: e.DT})
		}
	}
	return out, nil
}
