package servecmd

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"calq/sms"
	"calq/sms/emu"
	"calq/sms/store"
)

// TestSMSSettings: calq serve's SMS flags, read as calq sms daemon reads
// its own, give the daemon's options and the API's defaults; the
// modems come from --device or the config file's [[sms.modem]].
func TestSMSSettings(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "calq.toml")
	if err := os.WriteFile(conf, []byte("[[sms.modem]]\nname = \"office\"\ndevice = \"/dev/null\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.toml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want any
		got  func(o smsOpts) any
	}{
		{"defaults: no modems, only queues", []string{"--config", empty},
			[5]any{0, time.Second, 10 * time.Second, defaultSMSRate, defaultSMSQuota},
			func(o smsOpts) any {
				return [5]any{len(o.Daemon.Specs), o.Daemon.SendEvery, o.Daemon.PollEvery, o.Rate, o.Quota}
			}},
		{"devices", []string{"--config", empty, "--device", "/dev/null", "--device", "/dev/zero", "--result-timeout", "5s"},
			[2]any{[]string{"/dev/null", "/dev/zero"}, 5 * time.Second},
			func(o smsOpts) any {
				var devs []string
				for _, s := range o.Daemon.Specs {
					devs = append(devs, s.Device)
				}
				return [2]any{devs, o.Daemon.AT.ResultTimeout}
			}},
		{"the config file's modems", []string{"--config", conf},
			[2]any{"office", "/dev/null"},
			func(o smsOpts) any { return [2]any{o.Daemon.Specs[0].Name, o.Daemon.Specs[0].Device} }},
		{"the daemon's work", []string{"--config", empty, "--send-every", "100ms", "--poll-every", "2s", "--retries", "0",
			"--allow-duplicates", "--part-timeout", "1h"},
			[5]any{100 * time.Millisecond, 2 * time.Second, -1, true, time.Hour},
			func(o smsOpts) any {
				d := o.Daemon
				return [5]any{d.SendEvery, d.PollEvery, d.Retries, d.AllowDuplicates, d.Recv.ReassemblyTimeout}
			}},
		{"health checks: every 2s, free while a modem answers", []string{"--config", empty},
			2 * time.Second, func(o smsOpts) any { return o.Daemon.HealthEvery }},
		{"rate and quota", []string{"--config", empty, "--sms-rate", "600", "--sms-quota", "100000"},
			[2]any{600, 100000}, func(o smsOpts) any { return [2]any{o.Rate, o.Quota} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := parse(t, nil, c.args...)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := c.got(o.SMS); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

// TestSMSSettingsRefused: a bad SMS flag stops the start, naming it.
func TestSMSSettingsRefused(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"a device that is not there", []string{"--device", "/dev/calq-no-such-modem"}, "/dev/calq-no-such-modem"},
		{"send every", []string{"--send-every", "0s"}, "--send-every, --poll-every, --part-timeout and --health-every must be positive"},
		{"retries", []string{"--retries", "-1"}, "--retries: -1 is negative"},
		{"rate", []string{"--sms-rate", "0"}, "--sms-rate 0, --sms-quota 500: want 1 or more"},
		{"quota", []string{"--sms-quota", "-5"}, "--sms-rate 20, --sms-quota -5: want 1 or more"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, nil, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %v, want one holding %q", err, c.want)
			}
		})
	}
}

// lineLog is a logger whose records arrive one by one on a channel.
type lineLog chan string

func (l lineLog) Write(p []byte) (int, error) {
	l <- string(p)
	return len(p), nil
}

// await waits for a line holding want (at most a minute: a bound on a
// failure, not a timing).
func (l lineLog) await(t *testing.T, want string) string {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case line := <-l:
			if strings.Contains(line, want) {
				return line
			}
		case <-deadline:
			t.Fatalf("no log line saying %q within a minute", want)
		}
	}
}

// TestSMSHoldTakesOver: a server whose modems a calq sms daemon holds
// only queues and says so; once that daemon stops, the server takes the
// modems over and sends what is queued; its stop gives them back.
func TestSMSHoldTakesOver(t *testing.T) {
	defer func(d time.Duration) { holdRetry = d }(holdRetry)
	holdRetry = 10 * time.Millisecond
	ctx := t.Context()
	pdus := make(lineLog, 100)
	e, err := emu.Start(ctx, emu.Options{Log: pdus})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	db := filepath.Join(t.TempDir(), "calq.db")
	specs := []sms.ModemSpec{{Name: "office", Device: e.Devices()[0]}}
	other, err := sms.Open(ctx, db, sms.OpenOptions{Engine: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	octx, stopOther := context.WithCancel(ctx)
	ready, otherDone := make(chan struct{}), make(chan error, 1)
	go func() {
		otherDone <- other.Daemon(octx, sms.DaemonOptions{Specs: specs, PollEvery: -1, Ready: func() { close(ready) }})
	}()
	<-ready

	logs := make(lineLog, 100)
	changed := make(chan struct{}, 1)
	side, err := openSMS(ctx, db, smsOpts{Daemon: sms.DaemonOptions{Specs: specs, SendEvery: 20 * time.Millisecond, PollEvery: -1,
		Changed: func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}}},
		io.Discard, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	side.start(ctx)
	logs.await(t, "another calq sms daemon holds the modems")
	stopOther()
	if err := <-otherDone; err != nil {
		t.Fatalf("the other daemon: %v", err)
	}
	logs.await(t, "holding the modems")

	ids, _, err := sms.Enqueue(ctx, other.Store, sms.SendOptions{To: []string{"+4915112345678"}, Text: "queued while serve held"})
	if err != nil {
		t.Fatal(err)
	}
	pdus.await(t, `"pdu"`)
	for m := (store.SMSMessage{State: store.SMSQueued}); m.State == store.SMSQueued || m.State == store.SMSSending; {
		select {
		case <-changed:
		case <-time.After(time.Minute):
			t.Fatalf("message %d still %s a minute after its PDU went out", ids[0], m.State)
		}
		if m, err = other.Store.SMS(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
		if m.State != store.SMSQueued && m.State != store.SMSSending && m.State != store.SMSSent {
			t.Fatalf("message %d: %s (%s), want sent", ids[0], m.State, m.Reason)
		}
	}
	if err := side.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if held, err := sms.DaemonHolds(ctx, other.Journal, specs); err != nil || held {
		t.Errorf("after the server's stop the modems are held: %v %v", held, err)
	}
}
