package journal

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"time"
)

// maxBatch is how many requests the writer commits in one transaction at
// most: enough to amortise a commit, few enough to keep callers' latency
// near one commit's.
const maxBatch = 1024

// request is one write waiting for the writer.
type request struct {
	fn func(*txn) error
	// ctx, when set, runs fn alone in a transaction under ctx: fn is long
	// (Prune) or may fail by itself, and must neither hold up nor roll
	// back other writes. Its caller waits for the outcome even after ctx
	// is done, which ends the transaction soon.
	ctx  context.Context
	done chan error // buffered, so that the writer never waits for a caller
}

// txn is a transaction of the writer, with the hot path's statements
// bound to it on first use.
type txn struct {
	ctx   context.Context
	tx    *sql.Tx
	j     *Journal
	stmts [numStmts]*sql.Stmt
	// byText are the statements cached by text bound to tx (see
	// stmtcache.go).
	byText map[string]*sql.Stmt
}

func (t *txn) stmt(id stmtID) *sql.Stmt {
	if t.stmts[id] == nil {
		t.stmts[id] = t.tx.StmtContext(t.ctx, t.j.stmts[id])
	}
	return t.stmts[id]
}

// do hands r to the writer and waits until it is committed. When ctx is
// done first, do returns ctx.Err() and the write still happens, whole, as
// requested (unless r.ctx is set); r.fn must therefore share no memory
// with the caller but results the caller reads after do returns nil.
func (j *Journal) do(ctx context.Context, r *request) error {
	r.done = make(chan error, 1)
	j.mu.RLock()
	if j.closed {
		j.mu.RUnlock()
		return ErrClosed
	}
	select {
	case j.reqs <- r:
	case <-ctx.Done():
		j.mu.RUnlock()
		return ctx.Err()
	}
	j.mu.RUnlock()
	if r.ctx != nil {
		return <-r.done
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// write is the writer goroutine: it takes a request, gathers those waiting
// behind it and commits them together, until Close closes reqs.
func (j *Journal) write() {
	defer close(j.wrote)
	batch := make([]*request, 0, maxBatch)
	for r := range j.reqs {
		batch = j.gather(append(batch[:0], r))
		j.commitAll(batch)
		clear(batch) // let the requests' memory go
	}
}

// gather appends the requests already waiting, up to maxBatch. Finding
// none, it yields before it gives up: the callers that the last commit
// answered are often about to send their next request, and the more
// writes share a commit, the less each pays. While the batch is smaller
// than the last one (so more callers are probably on their way) it keeps
// yielding for up to lingerFor; a caller alone never waits for it.
func (j *Journal) gather(batch []*request) []*request {
	var deadline time.Time
	for len(batch) < maxBatch {
		select {
		case r, ok := <-j.reqs:
			if !ok {
				return batch
			}
			batch = append(batch, r)
			continue
		default:
		}
		if len(batch) >= j.lastBatch {
			runtime.Gosched() // one chance for a caller about to send
			if len(j.reqs) == 0 {
				break
			}
			continue
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(lingerFor)
		} else if time.Now().After(deadline) {
			break
		}
		runtime.Gosched()
	}
	j.lastBatch = len(batch)
	return batch
}

// lingerFor bounds how long a batch waits for the callers the last
// commit answered: a fraction of a commit's cost.
const lingerFor = 200 * time.Microsecond

// commitAll commits batch, in order, in as few transactions as the
// requests that run alone allow.
func (j *Journal) commitAll(batch []*request) {
	start := 0
	for i, r := range batch {
		if r.ctx != nil {
			j.commit(context.Background(), batch[start:i])
			j.commit(r.ctx, batch[i:i+1])
			start = i + 1
		}
	}
	j.commit(context.Background(), batch[start:])
}

// The writes of a batch happen whatever their callers' contexts say (see
// do), hence context.Background above.

// commit runs reqs in one transaction and gives each the outcome: an
// error fails them all, as none of their writes happened.
func (j *Journal) commit(ctx context.Context, reqs []*request) {
	if len(reqs) == 0 {
		return
	}
	// A rolled-back transaction undid every write, so a busy one is run
	// again whole; the requests' functions set their results afresh.
	err := retryBusy(ctx, func() error {
		return j.inTx(ctx, func(t *txn) error {
			for _, r := range reqs {
				if err := r.fn(t); err != nil {
					return err
				}
			}
			return nil
		})
	})
	for _, r := range reqs {
		r.done <- err
	}
}

// inTx runs fn in a write transaction and commits it unless fn fails.
func (j *Journal) inTx(ctx context.Context, fn func(*txn) error) error {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(&txn{ctx: ctx, tx: tx, j: j}); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}
