package analyze

// Abandonment (reneging): a customer who finds every server busy draws
// its patience and gets an abandonment event on the event list at the
// moment it runs out. Starting service removes that event from the list
// (cq.Queue.Remove, O(1) on average); the event, if it comes first, marks
// the customer gone where it stands in its line, found through its
// position in O(1), and the line skips it when it reaches the head. No
// scan of the line, whatever its length.

// ParsePatience reads a patience distribution, as ParseService reads a
// service time: exp:RATE (RATE is θ, 1 over the mean patience),
// const:SECONDS or lognormal:MEAN,CV. Errors are *OptionError for
// "patience".
func ParsePatience(spec string) (Service, error) {
	s, err := ParseService(spec)
	if err != nil {
		return Service{}, optionErr("patience", "%s", reason(err))
	}
	return s, nil
}

// checkPatience reports a patience that Simulate cannot draw, as an
// *OptionError for "patience".
func (o SimOptions) checkPatience() error {
	if o.Patience.Kind == "" {
		return nil
	}
	if err := o.Patience.check(); err != nil {
		return optionErr("patience", "%s", reason(err))
	}
	return nil
}

// enqueue puts customer w of class k at the end of its line and, with
// patience, schedules its abandonment.
func (r *replication) enqueue(k int, w waiting) {
	p := r.lines[k].push(w)
	if r.patience != nil {
		h := r.fel.Push(r.now+r.patience.draw(r.rnd), event{kind: abandonment, class: uint8(k), ref: int32(p)})
		r.lines[k].at(p).patience = h
	}
}

// abandon takes the customer of ev out of the system: it is marked gone
// in its line, which skips it later.
func (r *replication) abandon(ev event) {
	k := int(ev.class)
	w := r.lines[k].at(int(ev.ref))
	w.gone = true
	r.inSystem--
	r.inClass[k]--
	wait := r.now - w.at
	r.count(w.id, k, func(t *tally) {
		t.waited-- // P(wait) is a share of the served
		t.abandoned++
		t.abandonWait += wait
	})
}

// fifo is a line of waiting customers, a ring buffer that doubles when
// full. Each entry keeps its position (a count that pop raises and
// pushFront lowers) for as long as it is in the line, the buffer's growth
// included, so that at finds it in O(1).
type fifo struct {
	buf     []waiting // len is 0 or a power of two
	head, n int       // head is the position of the first entry
}

func (q *fifo) len() int { return q.n }

// at returns the entry at position p, which must be in the line.
func (q *fifo) at(p int) *waiting { return &q.buf[p&(len(q.buf)-1)] }

func (q *fifo) grow() {
	buf := make([]waiting, max(16, 2*len(q.buf)))
	for p := q.head; p < q.head+q.n; p++ {
		buf[p&(len(buf)-1)] = *q.at(p)
	}
	q.buf = buf
}

// push adds w at the end and returns its position.
func (q *fifo) push(w waiting) int {
	if q.n == len(q.buf) {
		q.grow()
	}
	p := q.head + q.n
	*q.at(p) = w
	q.n++
	return p
}

// pushFront puts w first: a preempted customer resumes before the others
// of its class, who all arrived after it.
func (q *fifo) pushFront(w waiting) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.head--
	*q.at(q.head) = w
	q.n++
}

func (q *fifo) pop() waiting {
	w := *q.at(q.head)
	q.head++
	q.n--
	return w
}
