package smsbench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"calq/sched/journal"
	"calq/sms"
	"calq/sms/at"
	"calq/sms/emu"
	"calq/sms/store"
)

// Options configure Run. Zero fields take the defaults shown.
type Options struct {
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

// Row is one pool size's throughput.
type Row struct {
	Modems    int     `json:"modems"`
	Messages  int     `json:"messages"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"per_second"`
	Ratio     float64 `json:"ratio"` // PerSecond over the one-modem run's
	Goal      float64 `json:"goal"`  // 0.9·modems
	OK        bool    `json:"ok"`
}

// Result is what Run measured.
type Result struct {
	Latency time.Duration `json:"latency_ns"`
	Rows    []Row         `json:"rows"`
	// OwnPerMessage is calq's own time per one-part message (codec,
	// journal, dispatch): the wall time of a zero-latency run on one
	// modem less the time spent waiting for the modem in SendPDU.
	OwnPerMessage time.Duration `json:"own_per_message_ns"`
	OwnGoal       time.Duration `json:"own_goal_ns"`
	OwnOK         bool          `json:"own_ok"`
}

func (o *Options) defaults() {
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

// Run sends one-part messages through emulated modems with a fixed
// latency per part, for each pool size, and compares the throughput with
// one modem's measured in the same run (goal: at least 0.9·n times); then
// it measures calq's own time per message with zero latency (goal: under
// 1 ms). It takes a few seconds.
func Run(ctx context.Context, o Options) (Result, error) {
	o.defaults()
	res := Result{Latency: o.Latency, OwnGoal: time.Millisecond}
	var base float64
	for _, n := range o.Modems {
		wall, _, _, err := benchRun(ctx, o.Dir, n, n*o.PerModem, o.Latency)
		if err != nil {
			return res, fmt.Errorf("bench with %d modems: %w", n, err)
		}
		row := Row{Modems: n, Messages: n * o.PerModem, Seconds: wall.Seconds(),
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
// modems. It returns the sending's wall time (dialling excluded: it runs
// from the first AT+CMGS), the enqueueing's, and the time the modems took
// to answer AT+CMGS, read off the AT log.
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
	st, err := store.Open(ctx, jn)
	if err != nil {
		return 0, 0, 0, err
	}
	clock := &atClock{}
	o := sms.SendOptions{Journal: jn, Store: st, Text: "calq sms bench", AT: at.Options{Log: clock}}
	for i, d := range e.Devices() {
		o.Modems = append(o.Modems, sms.ModemSpec{Name: fmt.Sprintf("emu%d", i), Device: d})
	}
	ids := make([]int64, 0, msgs)
	start := time.Now()
	for i := range msgs {
		o.To = []string{fmt.Sprintf("+4917%07d", i)}
		id, _, err := sms.Enqueue(ctx, st, o)
		if err != nil {
			return 0, 0, 0, err
		}
		ids = append(ids, id...)
	}
	enq = time.Since(start)
	_, _, err = sms.SendPending(ctx, o, ids)
	end := time.Now()
	if err == nil {
		err = checkAllSent(ctx, st)
	}
	first, atTime := clock.result()
	return end.Sub(first), enq, atTime, err
}

// atClock is an AT log (at.Options.Log) that times the modems' answers:
// from each AT+CMGS written to the final result read after it. Lines of
// several modems interleave, so atTime is exact for one modem and only
// the first AT+CMGS matters for several.
type atClock struct {
	mu     sync.Mutex
	first  time.Time
	since  time.Time // the pending AT+CMGS; zero when none
	atTime time.Duration
}

func (c *atClock) Write(p []byte) (int, error) {
	now := time.Now()
	line := strings.TrimSpace(string(p))
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case strings.HasPrefix(line, "> AT+CMGS="):
		if c.first.IsZero() {
			c.first = now
		}
		c.since = now
	case !c.since.IsZero() && (line == "< OK" || strings.Contains(line, "ERROR")):
		c.atTime += now.Sub(c.since)
		c.since = time.Time{}
	}
	return len(p), nil
}

func (c *atClock) result() (first time.Time, atTime time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.first, c.atTime
}

func checkAllSent(ctx context.Context, st sms.Outbox) error {
	ms, err := st.ListSMS(ctx, store.SMSFilter{})
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.State != store.SMSSent {
			return fmt.Errorf("sms %d ended %s: %s", m.ID, m.State, m.Reason)
		}
	}
	return nil
}
