package sms

import (
	"github.com/prometheus/client_golang/prometheus"

	"calq/sched"
)

// daemonMetrics are the daemon's own series, registered beside the
// engine's calq_sched_* in the same registry. A nil *daemonMetrics
// records nothing.
type daemonMetrics struct {
	polls, pollErrors, received prometheus.Counter
}

func newDaemonMetrics(m *sched.Metrics) *daemonMetrics {
	if m == nil {
		return nil
	}
	dm := &daemonMetrics{
		polls:      prometheus.NewCounter(prometheus.CounterOpts{Name: "calq_sms_daemon_polls_total", Help: "Inbox polls of the modems."}),
		pollErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "calq_sms_daemon_poll_errors_total", Help: "Inbox polls that reported an error."}),
		received:   prometheus.NewCounter(prometheus.CounterOpts{Name: "calq_sms_daemon_received_total", Help: "Messages and status reports the daemon handed out (with a handler)."}),
	}
	for _, c := range []prometheus.Collector{dm.polls, dm.pollErrors, dm.received} {
		if err := m.Registry().Register(c); err != nil {
			return nil // registered already by an earlier daemon on these metrics: leave them alone
		}
	}
	return dm
}

func (dm *daemonMetrics) polled(n int, err error) {
	if dm == nil {
		return
	}
	dm.polls.Inc()
	dm.received.Add(float64(n))
	if err != nil {
		dm.pollErrors.Inc()
	}
}
