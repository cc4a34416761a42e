package lo

import "sync"

// tailLog keeps the last bytes written to it: what an instance printed,
// for error messages. Safe for concurrent use.
type tailLog struct {
	mu    sync.Mutex
	buf   []byte
	size  int
	total int64 // bytes ever written
}

func newTailLog(size int) *tailLog { return &tailLog{size: size} }

func (t *tailLog) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.size; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// mark returns a position for since.
func (t *tailLog) mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// since returns what was written after mark, as far as it is kept.
func (t *tailLog) since(mark int64) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := min(t.total-mark, int64(len(t.buf)))
	return string(t.buf[int64(len(t.buf))-n:])
}

func (t *tailLog) String() string { return t.since(0) }
