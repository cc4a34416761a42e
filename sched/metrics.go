package sched

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are an engine's Prometheus metrics, in a registry of their own.
// Give one to EngineOptions.Metrics; WriteFile writes them in the text
// format for node_exporter's textfile collector. The engine updates them
// under its lock, caching each labelled series so a job costs a few atomic
// adds.
type Metrics struct {
	reg      *prometheus.Registry
	queueLen [NumClasses]prometheus.Gauge
	wait     [NumClasses]prometheus.Observer
	procVec  *prometheus.HistogramVec
	outVec   *prometheus.CounterVec
	failVec  *prometheus.CounterVec
	retries  prometheus.Counter
	loadVec  *prometheus.GaugeVec
	busyVec  *prometheus.GaugeVec
	upVec    *prometheus.GaugeVec
	dispVec  *prometheus.CounterVec
	proc     map[[2]string]prometheus.Observer
	out      map[State]prometheus.Counter
	fail     map[string]prometheus.Counter
	disp     map[string]prometheus.Counter
	bk       map[string][3]prometheus.Gauge // load, busy, up
}

// timeBuckets span a no-op job (10µs) to a long conversion (30 min).
var timeBuckets = prometheus.ExponentialBucketsRange(1e-5, 1800, 20)

// NewMetrics returns a fresh set of metrics named calq_sched_*.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg:  prometheus.NewRegistry(),
		proc: map[[2]string]prometheus.Observer{}, out: map[State]prometheus.Counter{},
		fail: map[string]prometheus.Counter{}, disp: map[string]prometheus.Counter{},
		bk: map[string][3]prometheus.Gauge{},
	}
	qlen := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "calq_sched_queue_length", Help: "Jobs ready and waiting for a worker, per priority class."}, []string{"class"})
	wait := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "calq_sched_wait_seconds", Help: "Time from ready to start of an attempt, per priority class.", Buckets: timeBuckets}, []string{"class"})
	m.procVec = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "calq_sched_processing_seconds", Help: "Duration of attempts, per job kind and backend.", Buckets: timeBuckets}, []string{"kind", "backend"})
	m.outVec = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calq_sched_attempts_total", Help: "Finished attempts by outcome."}, []string{"state"})
	m.failVec = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calq_sched_failures_total", Help: "Failed or timed-out attempts by reason."}, []string{"reason"})
	m.retries = prometheus.NewCounter(prometheus.CounterOpts{Name: "calq_sched_retries_total", Help: "Attempts followed by a retry."})
	m.loadVec = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "calq_sched_backend_load", Help: "Queued plus running jobs per worker."}, []string{"backend"})
	m.busyVec = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "calq_sched_backend_busy_workers", Help: "Workers running a job."}, []string{"backend"})
	m.upVec = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "calq_sched_backend_up", Help: "1 if the backend passed its last health check (or has none)."}, []string{"backend"})
	m.dispVec = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calq_sched_dispatch_total", Help: "Dispatch decisions: jobs given to each backend, by policy."}, []string{"backend", "policy"})
	m.reg.MustRegister(qlen, wait, m.procVec, m.outVec, m.failVec, m.retries, m.loadVec, m.busyVec, m.upVec, m.dispVec)
	for c := Class(0); c < NumClasses; c++ {
		m.queueLen[c] = qlen.WithLabelValues(c.String())
		m.wait[c] = wait.WithLabelValues(c.String())
	}
	return m
}

// Registry returns the registry holding the metrics.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// WriteFile writes the metrics to path in Prometheus' text format,
// atomically (a temporary file renamed over path).
func (m *Metrics) WriteFile(path string) error {
	if err := prometheus.WriteToTextfile(path, m.reg); err != nil {
		return fmt.Errorf("write metrics to %s: %w", path, err)
	}
	return nil
}

// The hooks below are called by the engine with its lock held; each is a
// no-op on a nil *Metrics.

func (m *Metrics) queued(c Class, n int) {
	if m != nil {
		m.queueLen[c].Set(float64(n))
	}
}

func (m *Metrics) started(c Class, wait time.Duration) {
	if m != nil {
		m.wait[c].Observe(wait.Seconds())
	}
}

func (m *Metrics) dispatched(b string, d Dispatch) {
	if m == nil {
		return
	}
	c := m.disp[b]
	if c == nil {
		c = m.dispVec.WithLabelValues(b, d.String())
		m.disp[b] = c
	}
	c.Inc()
}

func (m *Metrics) backend(b *backend) {
	if m == nil {
		return
	}
	g, ok := m.bk[b.Name]
	if !ok {
		g = [3]prometheus.Gauge{m.loadVec.WithLabelValues(b.Name), m.busyVec.WithLabelValues(b.Name), m.upVec.WithLabelValues(b.Name)}
		m.bk[b.Name] = g
	}
	g[0].Set(b.load())
	g[1].Set(float64(b.busy))
	up := 1.0
	if b.down {
		up = 0
	}
	g[2].Set(up)
}

func (m *Metrics) attempt(res *result) {
	if m == nil {
		return
	}
	r := res.run
	k := [2]string{r.job.Kind, r.b.Name}
	o := m.proc[k]
	if o == nil {
		o = m.procVec.WithLabelValues(k[0], k[1])
		m.proc[k] = o
	}
	o.Observe(res.finished.Sub(r.started).Seconds())
	c := m.out[res.state]
	if c == nil {
		c = m.outVec.WithLabelValues(string(res.state))
		m.out[res.state] = c
	}
	c.Inc()
	if res.state == StateFailed || res.state == StateTimedOut {
		f := m.fail[res.reason]
		if f == nil {
			f = m.failVec.WithLabelValues(res.reason)
			m.fail[res.reason] = f
		}
		f.Inc()
	}
	if !res.retryAt.IsZero() {
		m.retries.Inc()
	}
}
