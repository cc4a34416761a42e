package analyze

import (
	"context"
	"math/rand/v2"

	"calq/sched/cq"
)

// eventKind is what an event on the event list does when its time comes.
type eventKind uint8

const (
	arrival eventKind = iota
	departure
	abandonment
)

// An event is what the event list holds besides its time: its kind, the
// customer's class, and ref: for a preemptive run's departure the server
// slot, for an abandonment the customer's position in its class's line.
type event struct {
	kind  eventKind
	class uint8
	ref   int32 // below MaxCustomers·2 and MaxServers: a small event
}

// waiting is a customer in a line: its number (in order of arrival) and
// arrival time; with patience, the handle of its abandonment event and,
// once that has happened, gone; a preempted customer is resumed, with
// left of its service time req still to give.
type waiting struct {
	id        int
	at        float64
	left, req float64
	patience  cq.Handle[float64]
	gone      bool
	resumed   bool
}

// lastCustomer is one of the last customers to arrive.
type lastCustomer struct {
	at, response float64
	served       bool
}

// replication is one run: the state of the queue, the event list, and
// the tallies of its batches (one batch unless batch means are wanted).
// Each class has its line and counts; a run without classes has one.
type replication struct {
	servers, capacity, n, warmup int
	svc                          []sampler // per class
	share                        []float64 // classes: cumulative shares of the arrivals
	patience                     *sampler  // nil: nobody abandons
	arr                          arrivalStream
	rnd                          *rand.Rand
	events                       int64
	fel                          *cq.Queue[float64, event]
	lines                        []fifo
	inSystem, busy, nextID       int
	inClass, busyClass           []int
	pre                          *preemption // nil unless preemptive
	now                          float64
	measuring                    bool
	cur                          int // the batch time integrals go to
	tallies                      []tally
	classTallies                 [][]tally // [batch][class], nil without classes
	last                         [lastN]lastCustomer
}

// newReplication prepares replication i; its random numbers come from a
// PCG seeded with (Seed, i), so replications are independent and each is
// reproducible alone.
func newReplication(o SimOptions, i, batches int) *replication {
	rnd := rand.New(rand.NewPCG(o.Seed, uint64(i)))
	k := max(1, len(o.Classes))
	r := &replication{servers: o.Servers, capacity: o.Capacity, n: o.customers(), warmup: o.Warmup,
		rnd: rnd, fel: cq.NewQueue[float64, event](cq.Options{}), tallies: make([]tally, batches),
		lines: make([]fifo, k), inClass: make([]int, k), busyClass: make([]int, k)}
	if o.Patience.Kind != "" {
		p := o.Patience.sampler()
		r.patience = &p
	}
	if len(o.Classes) == 0 {
		r.svc, r.arr = []sampler{o.Service.sampler()}, o.Arrivals.stream(rnd)
		return r
	}
	r.setClasses(o, batches)
	return r
}

// run takes events until none is left: every customer has arrived and
// left, been blocked or abandoned.
func (r *replication) run(ctx context.Context) error {
	r.fel.Push(r.arr.at(r.rnd), event{kind: arrival})
	for {
		t, ev, ok := r.fel.Pop()
		if !ok {
			return nil
		}
		if r.events++; r.events%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r.advance(t)
		switch ev.kind {
		case arrival:
			r.arrive()
		case departure:
			r.depart(ev)
		default:
			r.abandon(ev)
		}
	}
}

// advance moves the clock to t, adding the time since the last event to
// the current batch's integrals once measuring has begun.
func (r *replication) advance(t float64) {
	if r.measuring {
		dt, b := t-r.now, &r.tallies[r.cur]
		b.area += float64(r.inSystem) * dt
		b.queueArea += float64(r.inSystem-r.busy) * dt
		b.busyArea += float64(r.busy) * dt
		b.dur += dt
		if r.classTallies != nil {
			r.advanceClasses(dt)
		}
	}
	r.now = t
}

// batchOf returns the batch of customer id, -1 for a warmup customer.
// Batches are runs of consecutive arrivals.
func (r *replication) batchOf(id int) int {
	if id < r.warmup {
		return -1
	}
	return (id - r.warmup) * len(r.tallies) / (r.n - r.warmup)
}

// batch returns the tallies of customer id and of its class within its
// batch (nil without classes), nil for a warmup customer.
func (r *replication) batch(id, class int) (total, cls *tally) {
	i := r.batchOf(id)
	if i < 0 {
		return nil, nil
	}
	if r.classTallies != nil {
		cls = &r.classTallies[i][class]
	}
	return &r.tallies[i], cls
}

// count applies f to the tallies of customer id of class k, if measured.
func (r *replication) count(id, k int, f func(*tally)) {
	b, c := r.batch(id, k)
	if b != nil {
		f(b)
	}
	if c != nil {
		f(c)
	}
}

func (r *replication) arrive() {
	id := r.nextID
	r.nextID++
	if r.nextID < r.n {
		r.fel.Push(r.arr.at(r.rnd), event{kind: arrival})
	}
	k := r.drawClass()
	if i := r.batchOf(id); i >= 0 {
		// From here on time integrals go to this customer's batch.
		r.measuring, r.cur = true, i
	}
	r.count(id, k, func(t *tally) { t.arrivals++ })
	if r.capacity > 0 && r.inSystem == r.capacity {
		r.count(id, k, func(t *tally) { t.blocked++ })
		return
	}
	r.inSystem++
	r.inClass[k]++
	w := waiting{id: id, at: r.now}
	if r.busy < r.servers {
		r.busy++
		r.serve(k, w)
		return
	}
	if r.pre != nil && r.preempt(k) {
		r.serve(k, w)
		return
	}
	r.count(id, k, func(t *tally) { t.waited++ })
	r.enqueue(k, w)
}

func (r *replication) depart(ev event) {
	k := int(ev.class)
	if r.pre != nil {
		r.finish(int(ev.ref))
	}
	r.inSystem--
	r.inClass[k]--
	r.busyClass[k]--
	if k, w, ok := r.next(); ok {
		r.serve(k, w) // the server goes on to the next
		return
	}
	r.busy--
}

// next takes the first customer of the highest class waiting, skipping
// those who abandoned.
func (r *replication) next() (class int, w waiting, ok bool) {
	for k := range r.lines {
		for r.lines[k].len() > 0 {
			if w := r.lines[k].pop(); !w.gone {
				return k, w, true
			}
		}
	}
	return 0, waiting{}, false
}

// serve starts c's service now. Without preemption its wait and time in
// system are known from here on, so they are tallied here; a preemptive
// run tallies them when the customer leaves.
func (r *replication) serve(k int, c waiting) {
	r.busyClass[k]++
	s := c.left
	if !c.resumed {
		s = r.svc[k].draw(r.rnd)
		c.req = s
		if r.patience != nil {
			r.fel.Remove(c.patience)
		}
	}
	if r.pre != nil {
		r.occupy(k, c, s)
		return
	}
	r.fel.Push(r.now+s, event{kind: departure, class: uint8(k)})
	r.served(k, c, r.now-c.at, s)
}

// served tallies customer c of class k, served after waiting wq for a
// service of s.
func (r *replication) served(k int, c waiting, wq, s float64) {
	r.count(c.id, k, func(t *tally) {
		t.served++
		t.w += wq + s
		t.wq += wq
	})
	if i := c.id - max(0, r.n-lastN); i >= 0 {
		r.last[i] = lastCustomer{at: c.at, response: wq + s, served: true}
	}
}

// lastCustomers returns the arrival and response times of the last lastN
// customers to arrive that were served.
func (r *replication) lastCustomers() (at, response []float64) {
	at, response = []float64{}, []float64{}
	for _, c := range r.last {
		if c.served {
			at, response = append(at, c.at), append(response, c.response)
		}
	}
	return at, response
}
