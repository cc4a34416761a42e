package pdu

import (
	"encoding/hex"
	"encoding/json"
	"time"
)

// TimeLayout is how timestamps appear in JSON: RFC 3339 with a numeric
// zone even at UTC, as pdu-vectors.tsv writes them.
const TimeLayout = "2006-01-02T15:04:05-07:00"

// jsonMessage is the JSON schema of a Message: the field names of
// sms/testdata/pdu-vectors.tsv. Fields a type lacks are left out; "smsc"
// is always present, null when the PDU has none.
type jsonMessage struct {
	Type      string  `json:"type"`
	SMSC      *string `json:"smsc"`
	MR        *int    `json:"mr,omitempty"`
	DA        *string `json:"da,omitempty"`
	OA        *string `json:"oa,omitempty"`
	RA        *string `json:"ra,omitempty"`
	TOA       *int    `json:"toa,omitempty"`
	PID       *int    `json:"pid,omitempty"`
	DCS       *int    `json:"dcs,omitempty"`
	Encoding  string  `json:"encoding,omitempty"`
	Class     *int    `json:"class,omitempty"`
	SRR       *bool   `json:"srr,omitempty"`
	VPSeconds *int    `json:"vp_seconds,omitempty"`
	VPAbs     string  `json:"vp_abs,omitempty"`
	SCTS      string  `json:"scts,omitempty"`
	DT        string  `json:"dt,omitempty"`
	ST        *int    `json:"st,omitempty"`
	Concat    *Concat `json:"concat,omitempty"`
	UDH       string  `json:"udh,omitempty"`
	Text      *string `json:"text,omitempty"`
	Data      string  `json:"data,omitempty"`
}

func ptr[T any](v T) *T { return &v }

func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(TimeLayout)
}

// MarshalJSON writes m with the field names of pdu-vectors.tsv: type, smsc,
// mr, da/oa/ra, toa, pid, dcs, encoding, class, srr, vp_seconds, vp_abs,
// scts, dt, st, concat {ref, total, seq, bits}, udh (hex), text, data (hex).
func (m Message) MarshalJSON() ([]byte, error) {
	j := jsonMessage{Type: m.Type, Encoding: m.Encoding, Concat: m.Concat,
		SCTS: jsonTime(m.SCTS), DT: jsonTime(m.DT), VPAbs: jsonTime(m.VPAbsolute),
		UDH: hex.EncodeToString(m.UDH), Data: hex.EncodeToString(m.Data)}
	if m.SMSC != "" {
		j.SMSC = &m.SMSC
	}
	if m.Class >= 0 {
		j.Class = ptr(m.Class)
	}
	if m.Encoding == "gsm7" || m.Encoding == "ucs2" {
		j.Text = &m.Text
	}
	switch m.Type {
	case "SUBMIT", "COMMAND":
		j.MR, j.DA, j.SRR = &m.MR, &m.DA, &m.SRR
	case "DELIVER":
		j.OA = &m.OA
	case "STATUS-REPORT":
		j.MR, j.RA, j.ST = &m.MR, &m.RA, &m.ST
	}
	if j.DA != nil || j.OA != nil || j.RA != nil {
		j.TOA = ptr(int(m.TOA))
	}
	if m.Type != "STATUS-REPORT" || m.Encoding != "" {
		j.PID, j.DCS = ptr(int(m.PID)), ptr(int(m.DCS))
	}
	if m.VPSeconds > 0 {
		j.VPSeconds = &m.VPSeconds
	}
	return json.Marshal(j)
}
