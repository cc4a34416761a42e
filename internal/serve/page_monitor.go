package serve

import (
	"html/template"
	"net/http"
	"time"

	"calq/internal/serve/monitor"
)

type monitorView struct {
	Snap   monitor.Snapshot
	Charts []template.HTML
	Err    string
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
	if s.opts.SMS != nil {
		src.SMS = s.opts.SMS
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
	s.render(w, r, http.StatusOK, "monitor", page{Title: "Monitoring", Nav: "monitor", Error: v.Err, Data: v})
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
