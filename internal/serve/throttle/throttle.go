// Package throttle slows down guessing passwords: after a few failed
// sign-ins under a key, each further attempt must wait, twice as long
// after each failure, up to a ceiling.
//
// calq serve counts every attempt under two keys, UserKey(name) and
// AddrKey(r.RemoteAddr): one guesser trying many passwords on one user,
// and one address trying one password on many users, are both slowed
// down. Before checking a password it calls Reserve, which charges the
// attempt as a failure at once when no key must wait, and else refuses
// it without charging (so that hammering a locked key does not lengthen
// its delay). Checking and charging in one step is what bounds a burst:
// of 128 wrong passwords sent at once, exactly the free ones are
// checked, since each takes its charge before any hash ends. After a
// right password calq serve calls Succeed with the user key and Refund
// with the address key (see Succeed); for an attempt it did not check
// (the server was busy or failed), Refund with both.
//
// New returns a Limiter; Reserve, Refund, Wait, Fail and Succeed cost a
// map lookup per key. A Limiter holds at most MaxKeys entries, dropping the one whose
// last failure is oldest, and forgets a key Forget after its last
// failure. It is safe for concurrent use. It lives in one process's
// memory: a restart forgets everything.
package throttle

import (
	"container/list"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Options are a Limiter's settings; a zero field takes its default.
type Options struct {
	// Free is how many failures a key may have before delays start: 3
	// when 0, none when negative.
	Free int
	// Base is the delay after the first failure past Free (1s); each
	// further failure doubles it, up to Max (15m).
	Base, Max time.Duration
	// Forget is how long after its last failure a key is forgotten (24h).
	Forget time.Duration
	// MaxKeys is how many keys the Limiter remembers at most (10000).
	MaxKeys int
	// Now is the clock (time.Now).
	Now func() time.Time
}

// Limiter counts failures per key. Its zero value is not usable: call
// New.
type Limiter struct {
	opts Options

	mu    sync.Mutex
	keys  map[string]*list.Element // of *entry
	order *list.List               // of *entry, oldest last failure first
}

// entry is what a Limiter knows of a key.
type entry struct {
	key      string
	failures int
	last     time.Time // of the last failure
	until    time.Time // when the next attempt may be tried
}

// New returns a Limiter with opts, its zero fields set to the defaults.
func New(opts Options) *Limiter {
	switch {
	case opts.Free == 0:
		opts.Free = 3
	case opts.Free < 0:
		opts.Free = 0
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.Base, time.Second)
	def(&opts.Max, 15*time.Minute)
	def(&opts.Forget, 24*time.Hour)
	if opts.MaxKeys <= 0 {
		opts.MaxKeys = 10000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Limiter{opts: opts, keys: make(map[string]*list.Element), order: list.New()}
}

// Wait returns how long the caller must wait before another attempt under
// keys may be tried: the longest of their delays, 0 when one may be
// tried now.
func (l *Limiter) Wait(keys ...string) time.Duration {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wait(now, keys)
}

func (l *Limiter) wait(now time.Time, keys []string) time.Duration {
	var wait time.Duration
	for _, k := range keys {
		if e := l.get(k, now); e != nil {
			wait = max(wait, e.until.Sub(now))
		}
	}
	return wait
}

// Reserve is Wait and Fail in one step, under one lock: when none of
// keys must wait, it charges each a failure now and returns 0; else it
// charges nothing and returns how long the caller must wait. The caller
// takes the charge back with Refund for an attempt that turns out not to
// be a failure.
func (l *Limiter) Reserve(keys ...string) time.Duration {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if wait := l.wait(now, keys); wait > 0 {
		return wait
	}
	l.fail(now, keys)
	return 0
}

// Refund takes back one failure of each of keys that Reserve or Fail
// charged: the key's delay is what it was before that charge, counted
// from its last charge, and a key left without failures is forgotten. A
// key that is not remembered (forgotten, dropped, or cleared by Succeed)
// is left alone.
func (l *Limiter) Refund(keys ...string) {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		e := l.get(k, now)
		if e == nil {
			continue
		}
		if e.failures--; e.failures <= 0 {
			l.remove(l.keys[k])
			continue
		}
		e.until = e.last.Add(l.delay(e.failures))
	}
}

// Fail records a failed attempt under each of keys: past Free failures,
// the key must wait Base, then twice as long after each further failure,
// up to Max, counted from now.
func (l *Limiter) Fail(keys ...string) {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fail(now, keys)
}

func (l *Limiter) fail(now time.Time, keys []string) {
	for _, k := range keys {
		e := l.get(k, now)
		if e == nil {
			e = l.add(k, now)
		}
		e.failures++
		e.last = now
		e.until = now.Add(l.delay(e.failures))
		l.order.MoveToBack(l.keys[k])
	}
}

// Succeed forgets the failures of keys. calq serve passes the user key
// alone after a right password, and only refunds the address key the
// charge of that attempt: forgetting the address's failures too would
// let a guesser who owns one account reset its address's count by
// signing in to it between guesses.
func (l *Limiter) Succeed(keys ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if el, ok := l.keys[k]; ok {
			l.remove(el)
		}
	}
}

// delay is the wait after the nth failure.
func (l *Limiter) delay(n int) time.Duration {
	past := n - l.opts.Free
	if past <= 0 {
		return 0
	}
	d := l.opts.Base
	for i := 1; i < past && d < l.opts.Max; i++ {
		d *= 2
	}
	return min(d, l.opts.Max)
}

// get returns the entry of key, nil when there is none or it is
// forgotten (and then removed).
func (l *Limiter) get(key string, now time.Time) *entry {
	el, ok := l.keys[key]
	if !ok {
		return nil
	}
	e := el.Value.(*entry)
	if now.Sub(e.last) >= l.opts.Forget {
		l.remove(el)
		return nil
	}
	return e
}

// add makes a new entry for key, at the back of the order, first
// dropping the forgotten entries and, when MaxKeys are still held, the
// oldest.
func (l *Limiter) add(key string, now time.Time) *entry {
	for f := l.order.Front(); f != nil && now.Sub(f.Value.(*entry).last) >= l.opts.Forget; f = l.order.Front() {
		l.remove(f)
	}
	for l.order.Len() >= l.opts.MaxKeys {
		l.remove(l.order.Front())
	}
	e := &entry{key: key}
	l.keys[key] = l.order.PushBack(e)
	return e
}

func (l *Limiter) remove(el *list.Element) {
	delete(l.keys, el.Value.(*entry).key)
	l.order.Remove(el)
}

// Len returns how many keys l remembers; a forgotten key counts until a
// new key is added or the key is looked up.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len()
}

// UserKey is the key of attempts to sign in as the user named name.
func UserKey(name string) string { return "user:" + name }

// AddrKey is the key of attempts from the client at remoteAddr, an
// http.Request's RemoteAddr ("host:port", or a bare host): "addr:" and
// the IPv4 address, or the /64 prefix of an IPv6 address, since one
// client commonly holds a whole /64. An IPv4-mapped IPv6 address counts
// as its IPv4 address; zones are dropped. What does not parse as an
// address is kept as it is.
func AddrKey(remoteAddr string) string {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return "addr:" + host
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return "addr:" + a.String()
	}
	return "addr:" + netip.PrefixFrom(a, 64).Masked().String()
}
