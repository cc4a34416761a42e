package sched

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMetrics: the counters and histograms agree with what the engine did,
// and WriteFile leaves a complete text-format file.
func TestMetrics(t *testing.T) {
	m := NewMetrics()
	fails := 0
	w := WorkerFunc(func(_ context.Context, j *Job) error {
		if string(j.Payload) == "flaky" && fails == 0 {
			fails++
			return errors.New("flaky")
		}
		return nil
	})
	e := newTestEngine(t, EngineOptions{Metrics: m, Backoff: Backoff{Base: time.Millisecond},
		Backends: []Backend{{Name: "b", Workers: []Worker{w}}}})
	e.Start()
	if err := e.Submit(context.Background(), &Job{Kind: "k", Payload: []byte("flaky"), Retries: 1},
		&Job{Kind: "k", Class: P0}, &Job{Kind: "k", Class: P3}); err != nil {
		t.Fatal(err)
	}
	wait(t, e)
	path := filepath.Join(t.TempDir(), "calq.prom")
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	t.Log(string(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`calq_sched_attempts_total{state="done"} 3`,
		`calq_sched_attempts_total{state="failed"} 1`,
		`calq_sched_failures_total{reason="error"} 1`,
		`calq_sched_retries_total 1`,
		`calq_sched_dispatch_total{backend="b",policy="marginal-rate"} 4`,
		`calq_sched_processing_seconds_count{backend="b",kind="k"} 4`,
		`calq_sched_wait_seconds_count{class="P0"} 1`,
		`calq_sched_wait_seconds_count{class="P2"} 2`,
		`calq_sched_queue_length{class="P2"} 0`,
		`calq_sched_backend_busy_workers{backend="b"} 0`,
		`calq_sched_backend_up{backend="b"} 1`,
	} {
		if !strings.Contains(string(data), want+"\n") {
			t.Errorf("metrics file lacks %q", want)
		}
	}
}
