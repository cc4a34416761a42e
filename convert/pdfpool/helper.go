package pdfpool

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"calq/internal/proc"
)

// sampleEvery is how often a working helper's memory is read: a helper
// inflating a stream grows by about 150 MiB a second (measured), so it
// is stopped within some 15 MiB of its limit.
const sampleEvery = 100 * time.Millisecond

// helper is one helper process as the pool sees it.
type helper struct {
	p       *proc.Helper
	enc     *json.Encoder
	replies chan reply // closed when the helper's stdout ends
	said    *firstBytes
}

func startHelper() (*helper, error) {
	said := &firstBytes{}
	p, err := proc.StartHelper(helperName, said)
	if err != nil {
		return nil, err
	}
	h := &helper{p: p, enc: json.NewEncoder(p.In), replies: make(chan reply, 1), said: said}
	go h.read()
	return h, nil
}

// read passes the helper's replies on. One request is out at a time, so
// a reply never waits for room once the caller has gone.
func (h *helper) read() {
	dec := json.NewDecoder(h.p.Out)
	for {
		var r reply
		if err := dec.Decode(&r); err != nil {
			close(h.replies)
			return
		}
		h.replies <- r
	}
}

// alive says whether the helper still runs.
func (h *helper) alive() bool {
	select {
	case <-h.p.Exited():
		return false
	default:
		return true
	}
}

// call sends req and waits for the reply, watching ctx, the time limit
// (none when 0) and the helper's memory. An error means the helper is
// dead or must be killed: a failure of the operation itself comes in the
// reply.
func (h *helper) call(ctx context.Context, limit time.Duration, req request, memLimit int64) (reply, error) {
	h.said.reset()
	resetPeak(h.p.Pid)
	if err := h.enc.Encode(req); err != nil {
		return reply{}, h.crashed()
	}
	var deadline <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(sampleEvery)
	defer tick.Stop()
	for {
		select {
		case rep, ok := <-h.replies:
			if !ok {
				return reply{}, h.crashed()
			}
			// Once more at the end: an operation shorter than the
			// sampling period is held to the limit too.
			return rep, h.overLimit(memLimit)
		case <-ctx.Done():
			return reply{}, context.Cause(ctx)
		case <-deadline:
			return reply{}, &TimeoutError{Limit: limit}
		case <-tick.C:
			if err := h.overLimit(memLimit); err != nil {
				return reply{}, err
			}
		}
	}
}

func (h *helper) overLimit(limit int64) error {
	if used := rss(h.p.Pid); used > limit {
		return &MemoryError{Used: used, Limit: limit}
	}
	return nil
}

// crashed is the error of a helper that died on its own.
func (h *helper) crashed() error {
	select {
	case <-h.p.Exited():
	case <-time.After(time.Second):
		h.p.Kill() // its stdout closed, yet it runs: it is of no more use
	}
	how := "it ended"
	if st := h.p.State(); st != nil {
		how = st.String()
	}
	return &CrashError{How: how, Said: h.said.reason()}
}

func (h *helper) kill() { h.p.Kill() }

// firstBytes keeps the first bytes a helper writes on stderr in an
// operation: a Go runtime's fatal error says why before its stacks.
type firstBytes struct {
	mu sync.Mutex
	b  []byte
}

const keepSaid = 4 << 10

func (f *firstBytes) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if room := keepSaid - len(f.b); room > 0 {
		f.b = append(f.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (f *firstBytes) reset() {
	f.mu.Lock()
	f.b = f.b[:0]
	f.mu.Unlock()
}

// reason is the line that says why: a fatal error's or a panic's, else
// the first.
func (f *firstBytes) reason() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	lines := strings.Split(string(bytes.TrimSpace(f.b)), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
			return l
		}
	}
	return lines[0]
}
