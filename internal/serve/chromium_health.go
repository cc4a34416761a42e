package serve

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"calq/convert/chromium"
)

// chromiumCheckTimeout bounds how long GET /health waits for the
// browsers to answer.
const chromiumCheckTimeout = 2 * time.Second

// chromiumHealth is the chromium detail of GET /health, and false when
// the server has no Chromium (no detail). A pool that has not started a
// browser yet is up, as it starts one at its first request (Gotenberg's
// browser is up once started); one whose browsers do not answer is down.
func (s *Server) chromiumHealth(ctx context.Context, now time.Time) (healthDetail, bool) {
	p := s.opts.Chromium
	if p == nil {
		return healthDetail{}, false
	}
	st := p.Stats()
	d := healthDetail{Status: "up", Timestamp: now, Busy: &st.Busy, Browsers: &st.Browsers,
		Restarts: &st.Restarts, Conversions: &st.Conversions}
	// Not st.LastError: a conversion's error names its client's URL, and
	// /health is for anyone.
	ctx, cancel := context.WithTimeout(ctx, chromiumCheckTimeout)
	defer cancel()
	if err := p.Check(ctx); err != nil {
		d.Status, d.LastError = "down", err.Error()
	}
	return d, true
}

// chromiumWaiting counts the Chromium jobs accepted and not yet at
// their turn: Gotenberg's Chromium requests queue.
func (s *Server) chromiumWaiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.running {
		if !r.started && isChromium(r.job.Route) {
			n++
		}
	}
	return n
}

// chromiumMetrics are Gotenberg's Chromium figures under its names in
// the namespace of RouteOptions.MetricsNamespace, and calq's own of the
// browsers (0 on a server without Chromium).
func chromiumMetrics(s *Server) []prometheus.Collector {
	ns := s.metricsNamespace()
	stat := func(f func(st chromium.Stats) float64) func() float64 {
		return func() float64 {
			if s.opts.Chromium == nil {
				return 0
			}
			return f(s.opts.Chromium.Stats())
		}
	}
	gauge := func(ns, name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: name, Help: help}, f)
	}
	return []prometheus.Collector{
		gauge(ns, "chromium_requests_queue_size", "Chromium jobs waiting for their turn.",
			func() float64 { return float64(s.chromiumWaiting()) }),
		gauge(ns, "chromium_restarts_count", "Chromium browsers started again since calq serve started.",
			stat(func(st chromium.Stats) float64 { return float64(st.Restarts) })),
		gauge("", "calq_serve_chromium_browsers", "Chromium browser processes running.",
			stat(func(st chromium.Stats) float64 { return float64(st.Browsers) })),
		gauge("", "calq_serve_chromium_busy", "Chromium conversions running now.",
			stat(func(st chromium.Stats) float64 { return float64(st.Busy) })),
		gauge("", "calq_serve_chromium_memory_bytes", "Resident memory of the Chromium browsers.",
			stat(func(st chromium.Stats) float64 { return float64(st.RSS) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "calq_serve_chromium_conversions_total",
			Help: "Chromium conversions finished since the pool started."},
			stat(func(st chromium.Stats) float64 { return float64(st.Conversions) })),
	}
}

// debugData is GET /debug's content: the server's settings, with the
// Chromium pool's state when it has one.
func (s *Server) debugData() DebugData {
	d := s.opts.Routes.DebugData
	p := s.opts.Chromium
	if p == nil {
		return d
	}
	if !slices.Contains(d.Modules, "chromium") {
		d.Modules = append(slices.Clone(d.Modules), "chromium")
		slices.Sort(d.Modules)
	}
	data := maps.Clone(d.ModulesData)
	if data == nil {
		data = map[string]map[string]string{}
	}
	c := maps.Clone(data["chromium"])
	if c == nil {
		c = map[string]string{}
	}
	st := p.Stats()
	c["browsers"], c["busy"] = strconv.Itoa(st.Browsers), strconv.Itoa(st.Busy)
	c["conversions"], c["restarts"] = strconv.FormatInt(st.Conversions, 10), strconv.FormatInt(st.Restarts, 10)
	c["memory_bytes"], c["started"] = strconv.FormatInt(st.RSS, 10), strconv.FormatBool(st.Started)
	data["chromium"] = c
	d.ModulesData = data
	return d
}

func (s *Server) debug(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.debugData())
}
