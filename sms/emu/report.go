package emu

import (
	"context"
	"fmt"
	"time"

	"calq/sms/pdu"
)

// ReportFailed is the TP-Status of a failed report: "remote procedure
// error", the first of 23.040's permanent errors (0x40-0x5F: the service
// centre makes no more attempts) and the one that names no more specific
// cause.
const ReportFailed = 0x40

// maxWaiting bounds the delayed reports of one modem; a report beyond it
// is dropped (ReportRecord.Via "dropped"), as a service centre's would be
// lost. Message references wrap at 256, so more could not be told apart.
const maxWaiting = 256

// ReportRecord is one line of Options.ReportLog: a status report as it
// went out.
type ReportRecord struct {
	Device string    `json:"device"`
	MR     int       `json:"mr"`
	To     string    `json:"to"`     // TP-RA: the recipient of the SUBMIT
	Status int       `json:"status"` // TP-ST
	Via    string    `json:"via"`    // "cds", "cdsi", "stored" or "dropped"
	Index  int       `json:"index,omitempty"`
	At     time.Time `json:"at"`
	PDU    string    `json:"pdu"`
}

// report is a status report owed for an accepted SUBMIT.
type report struct {
	mr     int
	to     pdu.Address
	status int
	scts   time.Time // when the SUBMIT was accepted
}

// owedReport returns the report a SUBMIT accepted as mr asks for, if it
// asks for one (TP-SRR). It draws from m.rng, so it runs on the serving
// goroutine.
func (m *modem) owedReport(hexPDU string, mr int) (report, bool) {
	msg, err := pdu.Decode(hexPDU, pdu.MO)
	if err != nil || msg.Type != "SUBMIT" || !msg.SRR {
		return report{}, false
	}
	r := report{mr: mr, to: pdu.Address{Number: msg.DA, TOA: msg.TOA}, scts: m.opts.Now()}
	if m.opts.ReportFailRate > 0 && m.rng.Float64() < m.opts.ReportFailRate {
		r.status = ReportFailed
	}
	return r, true
}

// sendReport delivers r after Options.ReportDelay: at once on the
// serving goroutine when it is 0 (right after the +CMGS), else on a
// goroutine of the emulator's, which Close stops.
func (m *modem) sendReport(ctx context.Context, r report) {
	d := m.opts.ReportDelay
	if d == 0 {
		m.deliverReport(r)
		return
	}
	m.mu.Lock()
	full := m.waiting >= maxWaiting
	if !full {
		m.waiting++
	}
	m.mu.Unlock()
	if full {
		m.logReport(r, "", "dropped", 0)
		return
	}
	ch := m.opts.After(d)
	m.bg.Go(func() {
		defer func() {
			m.mu.Lock()
			m.waiting--
			m.mu.Unlock()
		}()
		select {
		case <-ch:
			m.deliverReport(r)
		case <-ctx.Done():
		case <-m.gone:
		}
	})
}

// deliverReport hands r to the client as AT+CNMI's <ds> says (27.005
// §3.4.1): 1 routes it with "+CDS: <length>" and the PDU; 2 stores it and
// announces "+CDSI: "SM",<index>"; 0 stores it without a word, as modems
// that keep reports do (27.005 leaves storing to the ME; storing loses
// nothing, and a client that polls with AT+CMGL finds it). With <mode> 0
// the emulator has no buffer for unsolicited lines: it stores the report.
// A full memory drops it, as a modem's would.
func (m *modem) deliverReport(r report) {
	h, err := pdu.EncodeStatusReport(pdu.StatusReport{SMSC: m.opts.SMSC, MR: r.mr, RA: r.to,
		SCTS: r.scts, DT: m.opts.Now(), ST: r.status})
	if err != nil {
		m.logReport(r, "", "dropped", 0)
		return
	}
	m.mu.Lock()
	mode, ds := m.cnmi[0], m.cnmi[3]
	if ds == 1 && mode != 0 {
		m.mu.Unlock()
		m.write(fmt.Sprintf("\r\n+CDS: %d\r\n%s\r\n", tpduLen(h), h))
		m.logReport(r, h, "cds", 0)
		return
	}
	i, err := m.put(h)
	m.mu.Unlock()
	switch {
	case err != nil:
		m.logReport(r, h, "dropped", 0)
	case ds == 2 && mode != 0:
		m.write(fmt.Sprintf("\r\n+CDSI: \"SM\",%d\r\n", i))
		m.logReport(r, h, "cdsi", i)
	default:
		m.logReport(r, h, "stored", i)
	}
}

func (m *modem) logReport(r report, h, via string, index int) {
	m.repLog.write(ReportRecord{Device: m.device(), MR: r.mr, To: r.to.Number, Status: r.status,
		Via: via, Index: index, At: m.opts.Now(), PDU: h})
}
