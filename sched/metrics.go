package sched

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"calq/internal/fsio"
)

// Metrics are an engine's Prometheus metrics, in a registry of their own.
// Give one to EngineOptions.Metrics; WriteFile writes them in the text
// format for node_exporter's textfile collector. The engine caches each
// labelled series, so a job costs a few atomic adds, most of them outside
// its lock. Metrics are safe for concurrent use; one Metrics serves one
// engine.
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
	// Series made ahead, read without locks: attempt runs outside the
	// engine's lock.
	out  map[State]prometheus.Counter // every outcome, made in NewMetrics
	fail sync.Map                     // reason → prometheus.Counter
}

// backendSeries are one backend's series, kept on the backend.
type backendSeries struct {
	load, busy, up prometheus.Gauge
	dispatched     prometheus.Counter
	processing     map[string]prometheus.Observer // per job kind, under the engine's lock
}

// timeBuckets span a no-op job (10µs) to a long conversion (30 min).
var timeBuckets = prometheus.ExponentialBucketsRange(1e-5, 1800, 20)

// NewMetrics returns a fresh set of metrics named calq_sched_*.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
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
	m.out = map[State]prometheus.Counter{}
	for _, s := range []State{StateDone, StateFailed, StateTimedOut, StateCancelled} {
		m.out[s] = m.outVec.WithLabelValues(string(s))
	}
	for i := range NumClasses {
		m.queueLen[i] = qlen.WithLabelValues(ClassOf(i).String())
		m.wait[i] = wait.WithLabelValues(ClassOf(i).String())
	}
	return m
}

// Registry returns the registry holding the metrics.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// WriteEvery writes the metrics to path every period (15s when 0 or
// less) until the returned function is called, which writes them a last
// time and returns that write's error. With a nil m or an empty path it
// does nothing.
func (m *Metrics) WriteEvery(path string, every time.Duration) (stop func() error) {
	if m == nil || path == "" {
		return func() error { return nil }
	}
	if every <= 0 {
		every = 15 * time.Second
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = m.WriteFile(path) // the last write reports errors
			}
		}
	})
	return func() error {
		close(done)
		wg.Wait()
		return m.WriteFile(path)
	}
}

// WriteFile writes the metrics to path in Prometheus' text format,
// atomically (a temporary file renamed over path).
func (m *Metrics) WriteFile(path string) error {
	// WriteToTextfile renames over path: refuse a device (/dev/null run
	// as root), a FIFO or a directory rather than replace it.
	if err := fsio.CheckTarget(path); err != nil {
		return fmt.Errorf("write metrics: %w", err)
	}
	if err := prometheus.WriteToTextfile(path, m.reg); err != nil {
		return fmt.Errorf("write metrics to %s: %w", path, err)
	}
	return nil
}

// The hooks below are no-ops on a nil *Metrics. queued and backend are
// called under the engine's lock; started and attempt outside it.

func (m *Metrics) queued(c Class, n int) {
	if m != nil {
		m.queueLen[c.Index()].Set(float64(n))
	}
}

func (m *Metrics) started(c Class, wait time.Duration) {
	if m != nil {
		m.wait[c.Index()].Observe(wait.Seconds())
	}
}

// series makes a backend's series, once, when the engine is built.
func (m *Metrics) series(b *backend, d Dispatch) {
	if m == nil {
		return
	}
	b.series = &backendSeries{load: m.loadVec.WithLabelValues(b.Name), busy: m.busyVec.WithLabelValues(b.Name),
		up: m.upVec.WithLabelValues(b.Name), dispatched: m.dispVec.WithLabelValues(b.Name, d.String()),
		processing: map[string]prometheus.Observer{}}
	m.backendUp(b)
}

// processing returns the processing-time series of kind on b; e.mu is
// held.
func (m *Metrics) processing(b *backend, kind string) prometheus.Observer {
	o := b.series.processing[kind]
	if o == nil {
		o = m.procVec.WithLabelValues(kind, b.Name)
		b.series.processing[kind] = o
	}
	return o
}

func (m *Metrics) dispatched(b *backend) {
	if m != nil {
		b.series.dispatched.Inc()
	}
}

func (m *Metrics) backend(b *backend) {
	if m != nil {
		b.series.load.Set(b.load())
		b.series.busy.Set(float64(b.busy))
	}
}

// backendUp records a backend's health; it changes rarely, unlike load.
func (m *Metrics) backendUp(b *backend) {
	if m == nil {
		return
	}
	m.backend(b)
	up := 1.0
	if b.down {
		up = 0
	}
	b.series.up.Set(up)
}

// cached returns the series of key in cache, making it with mk once.
func cached[T any](cache *sync.Map, key any, mk func() T) T {
	if v, ok := cache.Load(key); ok {
		return v.(T)
	}
	v, _ := cache.LoadOrStore(key, mk())
	return v.(T)
}

func (m *Metrics) attempt(res *result) {
	if m == nil {
		return
	}
	r := res.run
	r.obs.Observe(res.finished.Sub(r.started).Seconds())
	m.out[res.state].Inc()
	if res.state == StateFailed || res.state == StateTimedOut {
		cached(&m.fail, res.reason, func() prometheus.Counter { return m.failVec.WithLabelValues(res.reason) }).Inc()
	}
	if !res.retryAt.IsZero() {
		m.retries.Inc()
	}
}
