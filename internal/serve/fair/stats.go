package fair

import "calq/sched"

// Stats is a snapshot of a Gate.
type Stats struct {
	Servers        int
	Busy           int                   // servers held by a Slot
	Waiting        int                   // files in Acquire
	Reserved       int                   // units of live Reservations not yet acquired
	WaitingByClass [sched.NumClasses]int // Waiting by class, P0 to P3
	WaitingByUser  map[string]int        // Waiting by user, users with none left out
	// ServiceRate is μ, what one server does per second: the inverse of
	// the estimated service time PredictWait uses; 0 while none was
	// measured.
	ServiceRate float64
}

// Stats returns the gate's state. It is O(r) for r user records.
func (g *Gate) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := Stats{
		Servers:       g.o.Servers,
		Busy:          g.o.Servers - len(g.free),
		Waiting:       g.waiting,
		Reserved:      g.reserved,
		WaitingByUser: make(map[string]int),
	}
	if g.service.n > 0 {
		s.ServiceRate = g.rate()
	}
	for _, u := range g.users {
		if u.waiting > 0 {
			s.WaitingByUser[u.name] = u.waiting
		}
		for i := range u.queues {
			s.WaitingByClass[i] += u.queues[i].Len()
		}
	}
	return s
}
