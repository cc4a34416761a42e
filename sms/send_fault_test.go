package sms

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"calq/sms/emu"
	"calq/sms/store"
)

// TestSendFaults sends 1,000 messages (a fifth of them in two parts)
// through 4 emulated modems while faults are injected: transient +CMS
// errors (a 2 % fail rate and injected ones), missing prompts, lost results,
// and one modem vanishing a third of the way through. Every message must
// end sent, failed with a reason, or unknown; every part of a sent message
// must have been accepted exactly once, all on the modem the outbox names;
// no part may have been accepted twice (duplicates are not allowed, so
// not even those recorded as unknown).
func TestSendFaults(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 300
	}
	r := newRig(t, emu.Options{Modems: 4, Seed: 7, FailRate: 0.02})
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute) // room for a loaded machine: 1,000 messages took 144 s at a load of 17
	defer cancel()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); r.inject(t, n, stop) }()

	texts := map[string]string{}
	var to []string
	for i := range n {
		num := fmt.Sprintf("+4917%07d", i)
		text := fmt.Sprintf("message %d", i)
		if i%5 == 0 {
			text += strings.Repeat(" and more", 20) // two parts
		}
		texts[num] = text
		to = append(to, num)
	}
	// One Send per distinct text: Send takes one text for many recipients.
	var ids []int64
	for _, group := range groupByText(to, texts) {
		o := r.opts(group, texts[group[0]])
		o.NoWait = true
		res, err := Send(ctx, o)
		if !errors.Is(err, ErrQueued) {
			t.Fatal(err)
		}
		for _, m := range res.Messages {
			ids = append(ids, m.ID)
		}
	}
	o := r.opts([]string{"+491799999999"}, "last")
	res, err := Send(ctx, o)
	t.Logf("last send: %v (%s), modems %v", err, outcomeOf(err), res.Modems)
	// Then the messages queued before it.
	q := r.opts(nil, "")
	q.Queued = true
	qres, qerr := Send(ctx, q)
	t.Logf("send --queued: %v (%s), %d earlier settled, %d still queued", qerr, outcomeOf(qerr), len(qres.Earlier), qres.StillQueued)
	close(stop)
	<-done
	r.check(t, append(ids, res.Messages[0].ID), texts)
}

func groupByText(to []string, texts map[string]string) [][]string {
	byText := map[string][]string{}
	var order []string
	for _, num := range to {
		if _, ok := byText[texts[num]]; !ok {
			order = append(order, texts[num])
		}
		byText[texts[num]] = append(byText[texts[num]], num)
	}
	var out [][]string
	for _, t := range order {
		out = append(out, byText[t])
	}
	return out
}

// inject adds a random fault to a random modem for every few PDUs logged,
// and makes the last modem vanish after a third of the messages.
func (r *rig) inject(t *testing.T, n int, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(1, 2))
	devs := r.e.Devices()
	faults := []emu.Fault{{CMSError: 42}, {CMSError: 332}, {NoPrompt: true}, {NoResult: true}, {CMSError: 21}}
	seen, vanished := 0, false
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		got := r.log.lines()
		for ; seen+8 <= got; seen += 8 {
			d := devs[rng.IntN(len(devs))]
			r.e.Inject(d, faults[rng.IntN(len(faults))])
		}
		if !vanished && got > n/3 {
			vanished = true
			r.vanish(len(devs) - 1)
		}
	}
}

func (r *rig) check(t *testing.T, ids []int64, texts map[string]string) {
	t.Helper()
	type partKey struct {
		to  string
		seq int
	}
	logged := map[partKey][]string{}
	for _, rec := range r.log.records(t) {
		seq := 1
		if rec.msg.Concat != nil {
			seq = rec.msg.Concat.Seq
		}
		k := partKey{rec.msg.DA, seq}
		logged[k] = append(logged[k], rec.Device)
	}
	devOf := map[string]string{}
	for i, d := range r.e.Devices() {
		devOf["m"+string(rune('0'+i))] = d
	}
	count := map[string]int{}
	reasons := map[string]int{}
	for _, id := range ids {
		m, err := r.st.SMS(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		count[m.State]++
		switch m.State {
		case store.SMSSent, store.SMSUnknown:
		case store.SMSFailed:
			reasons[m.Reason]++
			if m.Reason == "" {
				t.Errorf("sms %d failed without a reason", id)
			}
		default:
			t.Errorf("sms %d ended %s, want sent, failed or unknown", id, m.State)
		}
		for _, p := range m.Parts {
			devs := logged[partKey{m.To, p.Seq}]
			if len(devs) > 1 {
				t.Errorf("sms %d (%s) part %d accepted %d times, on %v", id, m.State, p.Seq, len(devs), devs)
			}
			if m.State == store.SMSSent && (len(devs) != 1 || devs[0] != devOf[m.Modem]) {
				t.Errorf("sms %d sent through %s, but part %d (mr %d) was accepted on %v", id, m.Modem, p.Seq, p.MR, devs)
			}
		}
	}
	t.Logf("%d messages: %v", len(ids), count)
	for reason, n := range reasons {
		t.Logf("failed %d× %s", n, reason)
	}
}
