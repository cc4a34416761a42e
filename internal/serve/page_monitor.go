package serve

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"calq/internal/serve/monitor"
	"calq/sms"
)

type monitorView struct {
	Snap   monitor.Snapshot
	Charts []template.HTML
	Err    string
	// SMS is the modems and the SMS queue, when calq serve sends SMS
	// (Options.SMSPages); nil otherwise.
	SMS *smsMonitor
}

// smsMonitor is what the monitoring page shows of SMS: the modems the
// daemons hold, as they last recorded them, and the queue; each part
// that cannot be read says so in its place.
type smsMonitor struct {
	Modems    []modemRow
	ModemsErr string
	QueueErr  string
}

// modemRow is a modem with the outbox's messages it sent, and those that
// failed with it or whose outcome it left unknown (store.Counts.ByModem).
type modemRow struct {
	sms.DaemonModem
	Sent, Failed, Unknown int
}

// monitorPage is the administrator's view of the server: the LibreOffice
// instances, the queue by class and by user, conversions and their p50
// and p95 times over the last hour and day (from the history that calq
// history stats and calq analyze history read), failures by reason and,
// with the SMS daemon in the same database, its outbox and inbox.
func (s *Server) monitorPage(w http.ResponseWriter, r *http.Request) {
	src := monitor.Sources{History: s.opts.History, Queue: s.files.Stats, Now: s.opts.now, Analyze: true}
	if s.opts.Pool != nil {
		src.Instances = s.opts.Pool.Stats
	}
	if s.opts.SMS != nil && s.opts.SMSPages == nil {
		src.SMS = s.opts.SMS // else smsMonitor reads the queue SMS over HTTP uses, which may be a shared one
	}
	var snap monitor.Snapshot
	var msg string
	var err error
	if s.opts.History == nil {
		msg = "calq serve records no history: the charts are empty."
		src.History = nil
	}
	if src.History != nil {
		snap, err = monitor.Collect(r.Context(), src)
	} else {
		snap = monitor.Snapshot{At: s.opts.now()}
		if src.Instances != nil {
			snap.Instances = src.Instances()
		}
	}
	if err != nil {
		_, msg, _ = s.internalError("collect the monitoring figures", err)
	}
	v := newMonitorView(snap, msg)
	if s.opts.SMSPages != nil {
		v.SMS = s.smsMonitor(r, &v.Snap)
	}
	s.render(w, r, http.StatusOK, "monitor", page{Title: "Monitoring", Nav: "monitor", Error: v.Err, Data: v})
}

// smsMonitor reads the modems and the SMS queue (into snap).
func (s *Server) smsMonitor(r *http.Request, snap *monitor.Snapshot) *smsMonitor {
	m := &smsMonitor{}
	modems, err := s.opts.SMSPages.Modems(r.Context())
	if err != nil {
		_, m.ModemsErr, _ = s.internalError("read the modems", err)
	}
	c, err := s.opts.SMSPages.Queue(r.Context())
	if err != nil {
		_, m.QueueErr, _ = s.internalError("count the SMS queue", err)
	} else {
		snap.SMS = &c
	}
	for _, d := range modems {
		by := c.ByModem[d.Name]
		m.Modems = append(m.Modems, modemRow{DaemonModem: d, Sent: by["sent"] + by["delivered"], Failed: by["failed"], Unknown: by["unknown"]})
	}
	return m
}

// newMonitorView is snap as the monitoring page shows it, with msg
// above it.
func newMonitorView(snap monitor.Snapshot, msg string) monitorView {
	v := monitorView{Snap: snap, Err: msg}
	for _, w := range []struct {
		name string
		win  monitor.Window
		per  string
	}{{"last hour", v.Snap.Hour, "5 min"}, {"last day", v.Snap.Day, "hour"}} {
		var done, p50, p95 []monitor.Point
		for _, b := range w.win.Buckets {
			done = append(done, monitor.Point{Time: b.Start, Value: float64(b.Done + b.Failed)})
			none := b.Run.N == 0
			p50 = append(p50, monitor.Point{Time: b.Start, Value: b.Run.P50, Missing: none})
			p95 = append(p95, monitor.Point{Time: b.Start, Value: b.Run.P95, Missing: none})
		}
		v.Charts = append(v.Charts,
			monitor.Chart("Files per "+w.per+", "+w.name, done, monitor.ChartOptions{Bar: true, Unit: "files", One: "file", Location: time.Local, Width: 340, Height: 180}),
			monitor.Chart("p50 conversion time, "+w.name, p50, monitor.ChartOptions{Unit: "s", Location: time.Local, Width: 340, Height: 180}),
			monitor.Chart("p95 conversion time, "+w.name, p95, monitor.ChartOptions{Unit: "s", Location: time.Local, Width: 340, Height: 180}))
	}
	return v
}

func init() {
	pageFuncs["signal"] = signal
	pageFuncs["breakerMeaning"] = sms.BreakerMeaning
	pageFuncs["token"] = func(s string) string { return strings.ReplaceAll(s, " ", "-") }
}

// signal is a modem's AT+CSQ rssi for people: "17 of 31 (−79 dBm)";
// 99 is the modem's "not known", below 0 "not asked".
func signal(rssi int) string {
	switch {
	case rssi < 0:
		return "not asked"
	case rssi == 99 || rssi > 31:
		return "not known"
	}
	return fmt.Sprintf("%d of 31 (\u2212%d\u00a0dBm)", rssi, 113-2*rssi)
}
