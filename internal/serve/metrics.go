package serve

import (
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"calq/internal/serve/users"
	"calq/sched"
)

// metrics are what GET /prometheus/metrics shows: the queue by class,
// the instances busy, conversions and jobs by outcome, and histograms of
// conversion time and queue wait.
type metrics struct {
	reg         *prometheus.Registry
	queue       *prometheus.GaugeVec
	conversions *prometheus.CounterVec
	jobsDone    *prometheus.CounterVec
	convTime    prometheus.Histogram
	waitTime    prometheus.Histogram
	jobTime     *prometheus.HistogramVec
	authFail    prometheus.Counter
	signInRef   *prometheus.CounterVec
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.queue = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "calq_serve_jobs_queued",
		Help: "Jobs accepted and waiting for their turn, by priority class."}, []string{"class"})
	m.conversions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calq_serve_conversions_total",
		Help: "LibreOffice conversions by outcome (ok, failed, timeout, cancelled)."}, []string{"outcome"})
	m.jobsDone = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calq_serve_jobs_total",
		Help: "Jobs finished, by route and outcome."}, []string{"route", "outcome"})
	buckets := prometheus.ExponentialBuckets(0.01, 2, 14) // 10 ms to 82 s
	m.convTime = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "calq_serve_conversion_seconds",
		Help: "Time of one LibreOffice conversion.", Buckets: buckets})
	m.waitTime = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "calq_serve_queue_wait_seconds",
		Help: "Time a document waited for a LibreOffice instance.", Buckets: buckets})
	m.jobTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "calq_serve_job_seconds",
		Help: "Time of a job from its turn to its end, by route.", Buckets: buckets}, []string{"route"})
	m.authFail = prometheus.NewCounter(prometheus.CounterOpts{Name: "calq_serve_auth_failures_total",
		Help: "Requests refused for a wrong API key."})
	m.signInRef = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calq_serve_sign_ins_refused_total",
		Help: "Sign-ins refused before their password was checked: throttled (too many failures) or busy (every password hash place taken)."},
		[]string{"reason"})
	busy := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "calq_serve_instances_busy",
		Help: "LibreOffice instances converting now."}, func() float64 { return float64(s.files.Stats().Busy) })
	total := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "calq_serve_instances",
		Help: "LibreOffice instances in the pool."}, func() float64 { return float64(s.instances) })
	waiting := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "calq_serve_documents_waiting",
		Help: "Documents waiting for a LibreOffice instance."}, func() float64 { return float64(s.files.Stats().Waiting) })
	m.reg.MustRegister(m.queue, m.conversions, m.jobsDone, m.convTime, m.waitTime, m.jobTime, m.authFail, m.signInRef,
		busy, total, waiting, prometheus.NewGoCollector())
	m.reg.MustRegister(hashMetrics()...)
	m.reg.MustRegister(gotenbergMetrics(s)...)
	m.reg.MustRegister(chromiumMetrics(s)...)
	for _, reason := range []string{"throttled", "busy"} {
		m.signInRef.WithLabelValues(reason)
	}
	for _, c := range []sched.Class{sched.P0, sched.P1, sched.P2, sched.P3} {
		m.queue.WithLabelValues(c.String()).Set(0)
	}
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *metrics) queued(c sched.Class, delta float64) {
	m.queue.WithLabelValues(c.String()).Add(delta)
}
func (m *metrics) wait(d time.Duration) { m.waitTime.Observe(d.Seconds()) }
func (m *metrics) authFailure()         { m.authFail.Inc() }

func (m *metrics) signInRefused(reason string) { m.signInRef.WithLabelValues(reason).Inc() }

// metricsNamespace is the namespace of Gotenberg's figures:
// RouteOptions.MetricsNamespace, "gotenberg" by default.
func (s *Server) metricsNamespace() string {
	if ns := s.opts.Routes.MetricsNamespace; ns != "" {
		return ns
	}
	return "gotenberg"
}

// gotenbergMetrics are the figures Gotenberg's dashboards read, under
// its names in the namespace of RouteOptions.MetricsNamespace:
// LibreOffice's queue and its restarts (Chromium's are in
// chromiumMetrics).
func gotenbergMetrics(s *Server) []prometheus.Collector {
	ns := s.metricsNamespace()
	queue := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "libreoffice_requests_queue_size",
		Help: "Documents waiting for a LibreOffice instance (calq_serve_documents_waiting)."},
		func() float64 { return float64(s.files.Stats().Waiting) })
	restarts := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "libreoffice_restarts_count",
		Help: "LibreOffice instances started again since calq serve started."}, func() float64 {
		n := 0
		if s.opts.Pool != nil {
			for _, inst := range s.opts.Pool.Instances() {
				n += max(inst.Starts()-1, 0)
			}
		}
		return float64(n)
	})
	return []prometheus.Collector{queue, restarts}
}

// hashMetrics are the figures of the process's password hashes
// (users.Hashes): what bounds the memory of sign-ins.
func hashMetrics() []prometheus.Collector {
	figures := []struct {
		name, help string
		counter    bool
		of         func(users.HashStats) int64
	}{
		{"calq_serve_password_hashes_total", "Password hashes run (sign-ins checked, passwords set), 19 MiB each.",
			true, func(s users.HashStats) int64 { return int64(s.Done) }},
		{"calq_serve_password_hashes_running", "Password hashes running now.",
			false, func(s users.HashStats) int64 { return int64(s.Running) }},
		{"calq_serve_password_hashes_most", "The most password hashes that ran at once (at most --max-password-checks).",
			false, func(s users.HashStats) int64 { return int64(s.Most) }},
		{"calq_serve_password_hashes_unreleased", "Password hashes ended whose memory is not given back to the system yet.",
			false, func(s users.HashStats) int64 { return int64(s.Unreleased) }},
		{"calq_serve_memory_released_total", "Times the memory of password hashes was given back to the system after they ended.",
			true, func(s users.HashStats) int64 { return int64(s.Released) }},
	}
	var cs []prometheus.Collector
	for _, f := range figures {
		read := func() float64 { return float64(f.of(users.Hashes.Stats())) }
		if f.counter {
			cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{Name: f.name, Help: f.help}, read))
		} else {
			cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: f.name, Help: f.help}, read))
		}
	}
	return cs
}

func (m *metrics) conversion(err error, d time.Duration) {
	m.conversions.WithLabelValues(outcome(err)).Inc()
	if err == nil {
		m.convTime.Observe(d.Seconds())
	}
}

func (m *metrics) job(route string, err error, d time.Duration) {
	m.jobsDone.WithLabelValues(route, outcome(err)).Inc()
	m.jobTime.WithLabelValues(route).Observe(d.Seconds())
}

func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, errCancelled):
		return "cancelled"
	case errors.Is(err, sched.ErrTimeout):
		return "timeout"
	}
	return "failed"
}
