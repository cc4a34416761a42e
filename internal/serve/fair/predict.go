package fair

import (
	"math"
	"time"

	"calq/sched"
)

// PredictWait returns the expected time until a new request of files
// files from user, all in class, would be done if it were queued now.
//
// The model is M/M/c conditioned on the gate's present state: c servers,
// each serving at rate μ (the inverse of the estimated service time: the
// last Options.Window service times, weighed by age, with
// Options.DefaultService as the prior; see estimate), exponential service
// times, and nothing arriving after this request. Files start in the order the gate grants them, and the
// files that start before this request's last one are:
//
//   - the user's own waiting files of class or a more urgent one (strict
//     priority: its less urgent files wait behind the new ones), and all
//     its reserved files, whose class is not known yet;
//   - for each other user v with b files waiting or reserved, those of its
//     files that fair queueing grants first: with this user's next start
//     tag S and weight w, and a of its own files ahead, the request's last
//     file has tag T = S + (a+files-1)/w, and v, at tag S_v with weight
//     w_v, gets min(b, ⌈(T-S_v)·w_v⌉) of its files in before it (one more
//     on an exact tie that v wins).
//
// With m files to start (those ahead plus the request's) and k servers
// free, the last file starts at once when m ≤ k; otherwise it waits for
// m-k departures, which come at rate cμ while all c servers are busy: an
// Erlang(m-k, cμ) time of mean (m-k)/(cμ). Its own service adds 1/μ:
//
//	PredictWait = max(0, m-k)/(cμ) + 1/μ
//
// For one file behind n ≥ c files in the system this is M/M/c's
// conditional wait (n-c+1)/(cμ) plus service, and averaged over M/M/c's
// stationary distribution of n it is analyze.MMc's W (by PASTA), which
// the tests check. The request counts as done when its last-started file
// is: files of it that started earlier and are still converting may end
// later (for exponential times the last of k files in service ends H_k/μ
// on average, not 1/μ), so the estimate is low by up to that for a request
// that fills several servers at its end. A class out of P0..P3 counts as
// P3.
func (g *Gate) PredictWait(user string, class sched.Class, files int) time.Duration {
	if files <= 0 {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return seconds(g.predict(user, class, files))
}

// RetryAfter says how long a request should wait before it is tried
// again, 0 when it may be admitted now. A request is admitted when
// PredictWait fits limit, and also, when even an idle gate would not fit
// it into limit, once nothing it would wait for is ahead of it: the
// prediction is an estimate, and waiting cannot make such a request any
// shorter, so it gets its chance (its own deadline cuts it should the
// estimate be right). Otherwise the wait is the prediction's excess over
// the larger of limit and the idle gate's time, which the files ahead
// drain at rate cμ with nothing arriving meanwhile: a mean, which the
// server rounds up to whole seconds for the Retry-After header. A
// prediction never refuses a request for good: only the bounds do
// (Reserve's ErrTooLarge).
func (g *Gate) RetryAfter(user string, class sched.Class, files int, limit time.Duration) time.Duration {
	if files <= 0 {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	mu := g.rate()
	c := float64(g.o.Servers)
	idle := math.Max(0, float64(files)-c)/(c*mu) + 1/mu
	now := g.predict(user, class, files)
	return max(0, seconds(now)-max(limit, seconds(idle)))
}

// Drain returns the expected time for n files to leave the queue with
// every server busy, n/(cμ): how long room for n files takes to free up
// in a full gate. It is the Retry-After for ErrFull and ErrUserFull (a
// user's own files drain at least this slowly, so it is a lower bound
// there).
func (g *Gate) Drain(n int) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return seconds(float64(max(n, 0)) / (float64(g.o.Servers) * g.rate()))
}

// predict is PredictWait in seconds, with g.mu held.
func (g *Gate) predict(name string, class sched.Class, files int) float64 {
	mu, c := g.rate(), float64(g.o.Servers)
	ahead := 0
	if u := g.users[name]; u != nil {
		ahead = u.reserved
		for i := range min(class.Index(), sched.NumClasses-1) + 1 {
			ahead += u.queues[i].Len()
		}
	}
	start, seq, weight := g.nextTag(name)
	last := start + float64(ahead+files-1)/weight
	for _, v := range g.users {
		if v.name != name {
			ahead += g.before(v, last, seq)
		}
	}
	toStart := max(0, ahead+files-len(g.free))
	return float64(toStart)/(c*mu) + 1/mu
}

// nextTag returns the start tag, tie-break sequence and weight that the
// next grant to user name would have: a user not waiting would start
// waiting after all others.
func (g *Gate) nextTag(name string) (start float64, seq uint64, weight float64) {
	u := g.users[name]
	switch {
	case u == nil:
		return g.vtime, math.MaxUint64, g.weight(name)
	case u.waiting == 0:
		return max(g.vtime, u.finish), math.MaxUint64, g.weight(name)
	}
	return u.start, u.seq, u.weight
}

// before counts v's waiting and reserved files that fair queueing grants
// before a file of tag last and tie-break sequence seq.
func (g *Gate) before(v *user, last float64, seq uint64) int {
	b := v.waiting + v.reserved
	if b == 0 {
		return 0
	}
	start, vseq, w := g.nextTag(v.name)
	x := (last - start) * w // v's files i = 0, 1, ... have tags start + i/w
	if x < 0 {
		return 0
	}
	n := int(math.Ceil(x)) // those with i < x
	if r := math.Round(x); math.Abs(x-r) < 1e-9 {
		n = int(r)
		if vseq <= seq { // a tie: v goes first
			n++
		}
	}
	return min(n, b)
}

// rate returns μ, the estimated service rate of one server per second.
func (g *Gate) rate() float64 {
	return g.service.rate(g.o.Now())
}

// seconds converts s seconds to a Duration, saturating.
func seconds(s float64) time.Duration {
	if d := s * float64(time.Second); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}
