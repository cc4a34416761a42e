package sms

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"calq/sched/journal"
	"calq/sms/at"
	"calq/sms/emu"
)

// BenchOptions configure Bench. Zero fields take the defaults shown.
type BenchOptions struct {
	Dir string // where the journals go (required): one file per run
	// Latency is the emulator's fixed time per part: 100ms. Real modems
	// take 3-10 s. At 20 ms, 16 modems ask for 800 parts a second, and the
	// bench then measures the CPU of calq and of the in-process emulator
	// on 2 cores (0.85·n here), not the modems' parallelism.
	Latency  time.Duration
	Modems   []int // pool sizes: 1, 2, 4, 8, 16
	PerModem int   // messages per modem in each run: 25
	Own      int   // messages of the zero-latency run that measures calq's own time: 500
}

// BenchRow is one pool size's throughput.
type BenchRow struct {
	Modems    int     `json:"modems"`
	Messages  int     `json:"messages"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"per_second"`
	Ratio     float64 `json:"ratio"` // PerSecond over the one-modem run's
	Goal      float64 `json:"goal"`  // 0.9·modems
	OK        bool    `json:"ok"`
}

// BenchResult is what Bench measured.
type BenchResult struct {
	Latency time.Duration `json:"latency_ns"`
	Rows    []BenchRow    `json:"rows"`
	// OwnPerMessage is calq's own time per one-part message (codec,
	// journal, dispatch): the wall time of a zero-latency run on one
	// modem less the time spent waiting for the modem in SendPDU.
	OwnPerMessage time.Duration `json:"own_per_message_ns"`
	OwnGoal       time.Duration `json:"own_goal_ns"`
	OwnOK         bool          `json:"own_ok"`
}

func (o *BenchOptions) defaults() {
	if o.Latency <= 0 {
		o.Latency = 100 * time.Millisecond
	}
	if len(o.Modems) == 0 {
		o.Modems = []int{1, 2, 4, 8, 16}
	}
	if o.Modems[0] != 1 {
		// Every ratio is to one modem's throughput measured in this run.
		o.Modems = append([]int{1}, slices.DeleteFunc(slices.Clone(o.Modems), func(n int) bool { return n == 1 })...)
	}
	if o.PerModem <= 0 {
		o.PerModem = 25
	}
	if o.Own <= 0 {
		o.Own = 500
	}
}

// Bench sends one-part messages through emulated modems with a fixed
// latency per part, for each pool size, and compares the throughput with
// one modem's measured in the same run (goal: at least 0.9·n times); then
// it measures calq's own time per message with zero latency (goal: under
// 1 ms). It takes a few seconds.
func Bench(ctx context.Context, o BenchOptions) (BenchResult, error) {
	o.defaults()
	res := BenchResult{Latency: o.Latency, OwnGoal: time.Millisecond}
	var base float64
	for _, n := range o.Modems {
		wall, _, _, err := benchRun(ctx, o.Dir, n, n*o.PerModem, o.Latency)
		if err != nil {
			return res, fmt.Errorf("bench with %d modems: %w", n, err)
		}
		row := BenchRow{Modems: n, Messages: n * o.PerModem, Seconds: wall.Seconds(),
			PerSecond: float64(n*o.PerModem) / wall.Seconds(), Goal: 0.9 * float64(n)}
		if base == 0 {
			base = row.PerSecond / float64(n)
		}
		row.Ratio = row.PerSecond / base
		row.OK = row.Ratio >= row.Goal
		res.Rows = append(res.Rows, row)
	}
	wall, enq, atTime, err := benchRun(ctx, o.Dir, 1, o.Own, 0)
	if err != nil {
		return res, fmt.Errorf("bench of calq's own time: %w", err)
	}
	res.OwnPerMessage = (enq + wall - atTime) / time.Duration(o.Own)
	res.OwnOK = res.OwnPerMessage < res.OwnGoal
	return res, nil
}

// benchRun enqueues msgs messages and sends them through n emulated
// modems. It returns the sending's wall time (dialling excluded), the
// enqueueing's, and the time spent in SendPDU.
func benchRun(ctx context.Context, dir string, n, msgs int, latency time.Duration) (wall, enq, atTime time.Duration, err error) {
	e, err := emu.Start(ctx, emu.Options{Modems: n, Latency: latency, Seed: 1})
	if err != nil {
		return 0, 0, 0, err
	}
	defer e.Close()
	jn, err := journal.Open(ctx, filepath.Join(dir, fmt.Sprintf("bench-%d-%d.db", n, time.Now().UnixNano())), journal.Options{})
	if err != nil {
		return 0, 0, 0, err
	}
	defer jn.Close()
	o := SendOptions{Journal: jn, Text: "calq sms bench", AT: at.Options{}}
	for i, d := range e.Devices() {
		o.Modems = append(o.Modems, ModemSpec{Name: fmt.Sprintf("emu%d", i), Device: d})
	}
	start := time.Now()
	for i := range msgs {
		o.To = []string{fmt.Sprintf("+4917%07d", i)}
		if _, _, err := Enqueue(ctx, jn, o); err != nil {
			return 0, 0, 0, err
		}
	}
	enq = time.Since(start)
	pool, err := OpenPool(ctx, o.Modems, o.AT)
	defer pool.Close()
	if err != nil {
		return 0, 0, 0, err
	}
	d, err := newDispatcher(pool, o, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	start = time.Now()
	pending, err := pendingFor(ctx, jn, nil, true)
	if err == nil {
		err = d.run(ctx, pending)
	}
	wall = time.Since(start)
	err = errors.Join(err, d.close())
	for _, t := range d.atTime {
		atTime += t
	}
	if err == nil {
		err = checkAllSent(ctx, jn)
	}
	return wall, enq, atTime, err
}

func checkAllSent(ctx context.Context, jn *journal.Journal) error {
	ms, err := jn.ListSMS(ctx, journal.SMSFilter{})
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.State != journal.SMSSent {
			return fmt.Errorf("sms %d ended %s: %s", m.ID, m.State, m.Reason)
		}
	}
	return nil
}
