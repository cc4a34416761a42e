// Package smshttpbench is calq sms bench --http: in one run, on the
// same emulated modems, it measures messages per second through calq
// serve's POST /sms and Kannel's /cgi-bin/sendsms against calq sms send
// (sms.Send, the command's one package call, as the baseline), and the
// time from the emulator's status report to the reportUrl call.
//
// The server is calq serve's SMS side assembled in this process as calq
// serve assembles it: smsapi's Service and sendsms's Handler on the
// server core, an sms daemon holding the modems, woken by each message
// queued and waking the Service's pushes at each change. Run takes a few
// seconds at the defaults; it is not safe to run two at once on the same
// Dir.
package smshttpbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	"calq/internal/serve"
	"calq/internal/serve/jobs"
	"calq/internal/serve/sendsms"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
	"calq/internal/serve/webhook"
	"calq/sched/journal"
	"calq/sms"
	"calq/sms/emu"
	"calq/sms/store"
)

// Options say what to measure. Zero fields take the defaults shown.
type Options struct {
	Dir      string        // where the journal and the server's data go (required)
	Modems   int           // emulated modems: 4
	Latency  time.Duration // the emulator's time per part: 100ms
	PerModem int           // messages per modem in each throughput run: 25
	Clients  int           // HTTP clients sending at once: Modems
	Reports  int           // messages whose status report is timed to its reportUrl: 20
}

func (o *Options) defaults() {
	if o.Modems <= 0 {
		o.Modems = 4
	}
	if o.Latency <= 0 {
		o.Latency = 100 * time.Millisecond
	}
	if o.PerModem <= 0 {
		o.PerModem = 25
	}
	if o.Clients <= 0 {
		o.Clients = o.Modems
	}
	if o.Reports <= 0 {
		o.Reports = 20
	}
}

// The goals: the HTTP paths within 5 % of the command line's throughput;
// a status report at its reportUrl within 50 ms at the median.
const (
	ThroughputGoal = 0.95
	ReportGoal     = 50 * time.Millisecond
)

// Row is one path's throughput.
type Row struct {
	Path      string  `json:"path"`
	Messages  int     `json:"messages"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"per_second"`
	Ratio     float64 `json:"ratio"` // PerSecond over calq sms send's, measured in the same run
	Goal      float64 `json:"goal"`  // ThroughputGoal; 0 for the baseline
	OK        bool    `json:"ok"`
}

// Result is what Run measured.
type Result struct {
	Modems       int           `json:"modems"`
	Latency      time.Duration `json:"latency_ns"`
	Rows         []Row         `json:"rows"`
	Reports      int           `json:"reports"`
	ReportMedian time.Duration `json:"report_median_ns"`
	ReportP90    time.Duration `json:"report_p90_ns"`
	ReportGoal   time.Duration `json:"report_goal_ns"`
	ReportOK     bool          `json:"report_ok"`
}

// The paths measured.
const (
	PathCLI     = "calq sms send"
	PathAPI     = "POST /sms"
	PathSendSMS = "/cgi-bin/sendsms"
)

// Run measures, in this order on the same emulated modems: calq sms
// send's messages per second (the baseline), then POST /sms's and
// sendsms's through the server, each as many one-part messages to
// distinct numbers; last the report times.
func Run(ctx context.Context, o Options) (Result, error) {
	o.defaults()
	if o.Dir == "" {
		return Result{}, errors.New("sms bench: no directory")
	}
	res := Result{Modems: o.Modems, Latency: o.Latency, Reports: o.Reports, ReportGoal: ReportGoal}
	reports := newReportLog()
	e, err := emu.Start(ctx, emu.Options{Modems: o.Modems, Latency: o.Latency, Seed: 1, ReportDelay: o.Latency, ReportLog: reports})
	if err != nil {
		return res, err
	}
	defer e.Close()
	jn, err := journal.Open(ctx, filepath.Join(o.Dir, "bench.db"), journal.Options{})
	if err != nil {
		return res, err
	}
	defer jn.Close()
	st, err := store.Open(ctx, jn)
	if err != nil {
		return res, err
	}
	var specs []sms.ModemSpec
	for i, d := range e.Devices() {
		specs = append(specs, sms.ModemSpec{Name: fmt.Sprintf("emu%d", i), Device: d})
	}
	n := o.Modems * o.PerModem
	cli, err := sendCLI(ctx, jn, st, specs, numbers(0, n))
	if err != nil {
		return res, fmt.Errorf("sms bench: calq sms send: %w", err)
	}
	res.Rows = append(res.Rows, row(PathCLI, n, cli, cli))
	srv, err := startServer(ctx, o.Dir, jn, st, specs)
	if err != nil {
		return res, err
	}
	defer srv.close()
	// A server holds its modems for hours: its start (the daemon's first
	// poll of each modem, the engine learning their pace) is not timed.
	if _, err := srv.throughput(ctx, PathAPI, numbers(3*n+o.Reports, 2*o.Modems), o.Clients); err != nil {
		return res, fmt.Errorf("sms bench: warm-up: %w", err)
	}
	for i, path := range []string{PathAPI, PathSendSMS} {
		wall, err := srv.throughput(ctx, path, numbers((i+1)*n, n), o.Clients)
		if err != nil {
			return res, fmt.Errorf("sms bench: %s: %w", path, err)
		}
		res.Rows = append(res.Rows, row(path, n, wall, cli))
	}
	times, err := srv.reportTimes(ctx, reports, numbers(3*n, o.Reports))
	if err != nil {
		return res, fmt.Errorf("sms bench: reports: %w", err)
	}
	res.ReportMedian, res.ReportP90 = quantile(times, 0.5), quantile(times, 0.9)
	res.ReportOK = res.ReportMedian < ReportGoal
	return res, nil
}

// row is path's throughput, n messages in wall, against the baseline's
// time for as many.
func row(path string, n int, wall, base time.Duration) Row {
	r := Row{Path: path, Messages: n, Seconds: wall.Seconds(), PerSecond: float64(n) / wall.Seconds(),
		Ratio: base.Seconds() / wall.Seconds()}
	if path != PathCLI {
		r.Goal, r.OK = ThroughputGoal, r.Ratio >= ThroughputGoal
	}
	return r
}

// sendCLI sends one message to each of to through specs as calq sms send
// does (sms.Send: recorded, then sent on its own engine) and returns its
// time, dialling the modems included.
func sendCLI(ctx context.Context, jn *journal.Journal, st *store.Store, specs []sms.ModemSpec, to []string) (time.Duration, error) {
	start := time.Now()
	res, err := sms.Send(ctx, sms.SendOptions{Journal: jn, Store: st, Modems: specs, To: to, Text: benchText})
	wall := time.Since(start)
	if err != nil {
		return 0, err
	}
	for _, m := range res.Messages {
		if m.State != store.SMSSent {
			return 0, fmt.Errorf("message %d to %s ended %s: %s", m.ID, m.To, m.State, m.Reason)
		}
	}
	return wall, nil
}

const benchText = "calq sms bench"

// numbers are n distinct German mobile numbers from the i-th on.
func numbers(i, n int) []string {
	out := make([]string, n)
	for k := range out {
		out[k] = fmt.Sprintf("+4917%07d", i+k)
	}
	return out
}

// quantile is the q-quantile of ds (nearest rank); 0 for none.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// server is calq serve's SMS side on the bench's journal and modems.
type server struct {
	url, key string
	st       *store.Store
	changed  chan struct{} // the daemon changed the outbox
	http     *http.Server
	cancel   context.CancelFunc
	done     chan error // the daemon's end
}

// startServer assembles calq serve's SMS side in this process, as calq
// serve does, with a user allowed to send at any rate.
func startServer(ctx context.Context, dir string, jn *journal.Journal, st *store.Store, specs []sms.ModemSpec) (*server, error) {
	us, err := users.Open(ctx, jn)
	if err != nil {
		return nil, err
	}
	key, err := benchUser(ctx, us)
	if err != nil {
		return nil, err
	}
	policy, err := webhook.NewPolicy([]string{"127.0.0.1"})
	if err != nil {
		return nil, err
	}
	box := sms.NewQueuing(st)
	svc, err := smsapi.New(ctx, smsapi.Options{Store: box, Journal: jn, Rights: us, Policy: policy})
	if err != nil {
		return nil, err
	}
	js, err := jobs.Open(ctx, jn)
	if err != nil {
		return nil, err
	}
	core, err := serve.New(serve.Options{Data: filepath.Join(dir, "data"), Jobs: js, Users: us,
		Surfaces: []serve.Surface{svc, &sendsms.Handler{Sender: svc, Users: us}}, Texter: svc.Texts()})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{url: "http://" + ln.Addr().String(), key: key, st: st, changed: make(chan struct{}, 1),
		http: &http.Server{Handler: core.Handler()}, done: make(chan error, 1)}
	go s.http.Serve(ln)
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	go svc.Run(dctx)
	ready := make(chan struct{})
	go func() {
		s.done <- sms.Daemon(dctx, sms.DaemonOptions{Journal: jn, Store: st, Specs: specs, Queued: box.Queued(),
			Ready: func() { close(ready) }, Changed: func() { svc.Wake(); s.note() }})
	}()
	select {
	case <-ready:
		return s, nil
	case err := <-s.done:
		s.http.Close()
		return nil, fmt.Errorf("sms bench: daemon: %w", err)
	}
}

// note tells the bench that the outbox changed.
func (s *server) note() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *server) close() error {
	s.cancel()
	err := <-s.done
	return errors.Join(err, s.http.Close())
}

// benchUser adds the bench's user, allowed to send at any rate, and
// returns a key of it.
func benchUser(ctx context.Context, us *users.Store) (string, error) {
	if _, err := us.Add(ctx, users.User{Name: "bench"}); err != nil {
		return "", err
	}
	if err := us.SetSMSRights(ctx, "bench", users.SMSRights{Allowed: true, Rate: 1 << 30, Quota: 1 << 30}); err != nil {
		return "", err
	}
	return us.NewKey(ctx, "bench")
}
