package lo

// States of an instance, as InstanceStats reports them.
const (
	StateIdle     = "idle"     // running, no conversion in progress
	StateBusy     = "busy"     // converting a document
	StateStarting = "starting" // soffice is starting (or restarting)
	StateStopped  = "stopped"  // not running: before its first use, after a recycle or a crash, or closed
)

// InstanceStats is what an instance has done since the pool started, for
// a monitoring page.
type InstanceStats struct {
	Name        string `json:"name"`
	State       string `json:"state"`       // StateIdle, StateBusy, StateStarting or StateStopped
	Conversions int    `json:"conversions"` // documents converted
	Failures    int    `json:"failures"`    // conversions that failed once the document was staged
	Restarts    int    `json:"restarts"`    // starts after the first (recycles, crashes, timeouts)
	RSS         int64  `json:"rss_bytes"`   // memory of the running soffice's process group; 0 when stopped
}

// Stats returns the instance's state and counters. It is safe to call
// at any time, also during a conversion; reading the memory scans /proc
// (about a millisecond with a few hundred processes, less between full
// scans).
func (i *Instance) Stats() InstanceStats {
	i.mu.Lock()
	s := InstanceStats{Name: i.name, Conversions: i.done, Failures: i.failed, Restarts: max(i.starts-1, 0)}
	r := i.run
	switch {
	case i.starting:
		s.State = StateStarting
	case r == nil:
		s.State = StateStopped
	case i.busy:
		s.State = StateBusy
	default:
		s.State = StateIdle
	}
	i.mu.Unlock()
	if r != nil && s.State != StateStarting {
		s.RSS = r.watch.rss()
	}
	return s
}

// setFlag sets one of the instance's state flags under its lock.
func (i *Instance) setFlag(flag *bool, v bool) {
	i.mu.Lock()
	*flag = v
	i.mu.Unlock()
}

// count adds a conversion's outcome to the instance's counters.
func (i *Instance) count(err error) {
	i.mu.Lock()
	if err == nil {
		i.done++
	} else {
		i.failed++
	}
	i.mu.Unlock()
}

// Stats returns every instance's Stats, in the order of Instances.
func (p *Pool) Stats() []InstanceStats {
	s := make([]InstanceStats, len(p.insts))
	for n, i := range p.insts {
		s[n] = i.Stats()
	}
	return s
}
