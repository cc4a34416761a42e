package smshttpbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"calq/sms/emu"
	"calq/sms/store"
)

// throughput sends one message to each of to through path with clients
// clients at once, and returns the time from the first request to the
// outbox holding nothing queued.
func (s *server) throughput(ctx context.Context, path string, to []string, clients int) (time.Duration, error) {
	jobs := make(chan string, len(to))
	for _, n := range to {
		jobs <- n
	}
	close(jobs)
	errs := make(chan error, clients)
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for n := range jobs {
				if err := s.send(ctx, path, n, ""); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	if err := s.settled(ctx); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// send sends one message to number through path; reportURL, when set,
// receives its reports (POST /sms only).
func (s *server) send(ctx context.Context, path, number, reportURL string) error {
	var req *http.Request
	var err error
	switch path {
	case PathAPI:
		body := map[string]any{"to": number, "text": benchText}
		if reportURL != "" {
			body["reportUrl"] = reportURL
		}
		b, _ := json.Marshal(body)
		if req, err = http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/sms", bytes.NewReader(b)); err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+s.key)
		}
	default:
		q := url.Values{"username": {"bench"}, "password": {s.key}, "to": {number}, "text": {benchText}}
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/cgi-bin/sendsms?"+q.Encode(), nil)
	}
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("%s to %s: %d %s", path, number, resp.StatusCode, bytes.TrimSpace(b))
	}
	return nil
}

// settled waits until the outbox holds no queued message, reading it
// at each change the daemon makes; a message that did not go out is an
// error.
func (s *server) settled(ctx context.Context) error {
	for {
		c, err := s.st.Counts(ctx)
		if err != nil {
			return err
		}
		if c.Outbox[store.SMSQueued] == 0 {
			if n := c.Outbox[store.SMSFailed] + c.Outbox[store.SMSUnknown]; n > 0 {
				return fmt.Errorf("%d messages did not go out", n)
			}
			return nil
		}
		select {
		case <-s.changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// reportTimes sends one message to each of to through POST /sms with a
// reportUrl on loopback, one after the other (each after the last one's
// report, so that the modem is idle when the report comes: what is timed
// is calq's, not a modem busy sending), and returns, for each, the time
// from the emulator's status report going out to the reportUrl's
// sms.report.
func (s *server) reportTimes(ctx context.Context, reports *reportLog, to []string) ([]time.Duration, error) {
	arrived := make(chan arrival, len(to))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hooks := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		var e struct{ Type, To string }
		if json.NewDecoder(r.Body).Decode(&e) == nil && e.Type == "sms.report" {
			arrived <- arrival{to: e.To, at: now}
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go hooks.Serve(ln)
	defer hooks.Close()
	var times []time.Duration
	for _, n := range to {
		if err := s.send(ctx, PathAPI, n, "http://"+ln.Addr().String()+"/report"); err != nil {
			return nil, err
		}
		select {
		case a := <-arrived:
			sent, ok := reports.at(a.to)
			if !ok || a.to != n {
				return nil, fmt.Errorf("a report for %s, want one for %s, which the emulator sent: %v", a.to, n, ok)
			}
			times = append(times, a.at.Sub(sent))
		case <-time.After(time.Minute):
			return nil, fmt.Errorf("no report for %s at the reportUrl within a minute", n)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return times, nil
}

// arrival is an sms.report at the reportUrl: its recipient and when.
type arrival struct {
	to string
	at time.Time
}

// reportLog is the emulator's log of status reports (emu's ReportLog):
// when the report for each recipient went out.
type reportLog struct {
	mu   sync.Mutex
	sent map[string]time.Time
}

func newReportLog() *reportLog { return &reportLog{sent: map[string]time.Time{}} }

func (l *reportLog) Write(p []byte) (int, error) {
	var r emu.ReportRecord
	if err := json.Unmarshal(p, &r); err != nil {
		return 0, err
	}
	l.mu.Lock()
	l.sent[r.To] = r.At
	l.mu.Unlock()
	return len(p), nil
}

// at is when the report for recipient to went out.
func (l *reportLog) at(to string) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.sent[to]
	return t, ok
}
