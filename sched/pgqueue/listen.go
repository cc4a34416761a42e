package pgqueue

// Listening: LISTEN on the jobs channel wakes the pump when jobs are
// submitted or requeued, rather than at its next poll.

import (
	"context"
	"time"
)

// signal wakes the pump, if it is not due to wake already.
func (w *Worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// listen wakes the pump when jobs are submitted or requeued.
func (w *Worker) listen(ctx context.Context) {
	for ctx.Err() == nil {
		conn, err := w.q.pool.Acquire(ctx)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+notifyJobs)
			if err == nil {
				// What was notified before LISTEN took effect (at the
				// start, after a reconnection) is missed: look now.
				w.signal()
			}
			for err == nil {
				_, err = conn.Conn().WaitForNotification(ctx)
				if err == nil {
					w.signal()
				}
			}
			conn.Conn().Close(context.Background()) // a listening connection is not given back
			conn.Release()
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
