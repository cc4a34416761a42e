package sms

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/sched"
	"calq/sched/journal"
	"calq/sms/at"
	"calq/sms/emu"
	"calq/sms/pdu"
	"calq/sms/store"
)

// syncBuffer is the emulator's log, written by its modems while tests read it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// sent is one accepted PDU of the emulator's log, decoded.
type sent struct {
	emu.Record
	msg pdu.Message
}

// lines counts the records logged so far.
func (b *syncBuffer) lines() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Count(b.buf.Bytes(), []byte("\n"))
}

func (b *syncBuffer) records(t *testing.T) []sent {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []sent
	for _, line := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var r emu.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		m, err := pdu.Decode(r.PDU, pdu.MO)
		if err != nil {
			t.Fatalf("log PDU %s: %v", r.PDU, err)
		}
		out = append(out, sent{r, m})
	}
	return out
}

// rig is an emulator, its log and a journal in the test's directory.
type rig struct {
	e   *emu.Emulator
	log *syncBuffer
	jn  *journal.Journal
	st  *store.Store // in jn
	dir string
	// links are the modems' device paths that calq uses: a symlink per
	// pty in dir, removed when the modem vanishes. A vanished pty's
	// number is soon another process's pty (another test's emulator),
	// and redialling it would talk to that one.
	links []string
}

func newRig(t *testing.T, o emu.Options) *rig {
	t.Helper()
	r := &rig{log: &syncBuffer{}, dir: t.TempDir()}
	o.Log = r.log
	e, err := emu.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	r.e = e
	for i, d := range e.Devices() {
		link := filepath.Join(r.dir, fmt.Sprintf("modem%d", i))
		if err := os.Symlink(d, link); err != nil {
			t.Fatal(err)
		}
		r.links = append(r.links, link)
	}
	r.jn = r.openJournal(t)
	return r
}

// vanish makes modem i vanish, its device path with it, as a modem
// unplugged.
func (r *rig) vanish(i int) {
	os.Remove(r.links[i])
	r.e.Inject(r.e.Devices()[i], emu.Fault{Vanish: true})
}

func (r *rig) openJournal(t *testing.T) *journal.Journal {
	t.Helper()
	jn, err := journal.Open(context.Background(), filepath.Join(r.dir, "calq.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { jn.Close() })
	if r.st, err = store.Open(context.Background(), jn); err != nil {
		t.Fatal(err)
	}
	return jn
}

// opts are SendOptions for the rig's modems with short timeouts and backoffs.
func (r *rig) opts(to []string, text string) SendOptions {
	var specs []ModemSpec
	for i, d := range r.links {
		specs = append(specs, ModemSpec{Name: "m" + string(rune('0'+i)), Device: d})
	}
	return SendOptions{Journal: r.jn, Store: r.st, To: to, Text: text, Modems: specs,
		AT:      at.Options{PromptTimeout: 300 * time.Millisecond, ResultTimeout: 500 * time.Millisecond},
		Backoff: sched.Backoff{Base: 5 * time.Millisecond, Max: 50 * time.Millisecond}, Retries: 8,
		HealthEvery: 50 * time.Millisecond}
}

func emu2() emu.Options { return emu.Options{Modems: 2, Seed: 1} }
