package sms

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/sms/emu"
	"calq/sms/store"
)

// outboxSnapshot says what the outbox and the reports of r are now: one
// "part N STATE" per part and "report OUTCOME ST" per matched report.
func (r *rig) outboxSnapshot() string {
	ctx := context.Background()
	ms, err := r.st.ListSMS(ctx, store.SMSFilter{})
	if err != nil {
		return "error: " + err.Error()
	}
	var out []string
	for _, m := range ms {
		for _, p := range m.Parts {
			out = append(out, fmt.Sprintf("part %d %s", p.Seq, p.State))
		}
		reps, err := Reports(ctx, r.st, m)
		if err != nil {
			return "error: " + err.Error()
		}
		for _, rep := range reps {
			out = append(out, fmt.Sprintf("report %s %d", rep.Outcome, rep.Status))
		}
	}
	return strings.Join(out, ", ")
}

// TestDaemonReports: a message that asks for a status report ends with
// the report the emulated network sends (delivered, or failed at fail
// rate 1), filed by the daemon as soon as the modem announces it (+CDSI)
// or hands it out (+CDS, from a modem that cannot store reports), not at
// its next poll (an hour away); Changed is called once the part is
// accepted and once the report is filed, and the report is filed once.
func TestDaemonReports(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    emu.Options
		want string
	}{
		{"delivered, +CDSI", emu.Options{Seed: 1}, "report delivered 0"},
		{"failed, +CDSI", emu.Options{Seed: 1, ReportFailRate: 1}, "report failed 64"},
		{"delivered, +CDS", emu.Options{Seed: 1, CDSOnly: true}, "report delivered 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.o)
			seen := make(chan string, 1024)
			startDaemonWith(t, r, r.opts(nil, "").Modems, nil, func(o *DaemonOptions) {
				o.PollEvery = time.Hour
				o.Changed = func() {
					select {
					case seen <- r.outboxSnapshot():
					default:
					}
				}
			})
			o := r.opts([]string{"+4915112345678"}, "report me")
			o.Report, o.NoWait, o.Modems = true, true, nil
			if _, err := Send(context.Background(), o); outcomeOf(err) != "queued" {
				t.Fatalf("Send: %v, want it queued for the daemon", err)
			}
			// Changed is called after the acceptance and again after the
			// filing; the first snapshot may already show the report, when
			// the network answered at once.
			var got []string
			accepted := func() int {
				return len(slices.DeleteFunc(slices.Clone(got), func(s string) bool { return !strings.HasPrefix(s, "part 1 accepted") }))
			}
			for accepted() < 2 || !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "report") }) {
				select {
				case s := <-seen:
					got = append(got, s)
				case <-time.After(10 * time.Second):
					t.Fatalf("no report within 10s, or Changed not called after both the acceptance and the report; it saw %q", got)
				}
			}
			if last, want := got[len(got)-1], "part 1 accepted, "+tc.want; last != want {
				t.Errorf("Changed last saw %q, want %q", last, want)
			}
			es, err := r.st.NewInboxEntries(context.Background())
			if err != nil || len(es) != 1 || es[0].Kind != store.KindReport {
				t.Errorf("inbox: %+v, %v; want the one report", es, err)
			}
		})
	}
}

// TestDaemonReportsAfterRedial: a modem dialled again by its health check
// (it did not answer at the start) is watched too: its report is filed
// as soon as it is announced.
func TestDaemonReportsAfterRedial(t *testing.T) {
	r := newRig(t, emu.Options{Modems: 1, Seed: 1})
	late := filepath.Join(r.dir, "ttyUSB0") // appears later, as a modem plugged in
	filed := make(chan struct{}, 1)
	startDaemonWith(t, r, []ModemSpec{{Name: "m0", Device: late}}, nil, func(o *DaemonOptions) {
		o.PollEvery = time.Hour
		o.Changed = func() {
			if strings.Contains(r.outboxSnapshot(), "report delivered") {
				select {
				case filed <- struct{}{}:
				default:
				}
			}
		}
	})
	o := r.opts([]string{"+4915112345678"}, "after the redial")
	o.Report, o.NoWait, o.Modems = true, true, nil
	if _, err := Send(context.Background(), o); outcomeOf(err) != "queued" {
		t.Fatalf("Send: %v, want it queued for the daemon", err)
	}
	if err := os.Symlink(r.e.Devices()[0], late); err != nil {
		t.Fatal(err)
	}
	select {
	case <-filed:
	case <-time.After(10 * time.Second):
		t.Fatalf("no report filed within 10s: %s", r.outboxSnapshot())
	}
}
