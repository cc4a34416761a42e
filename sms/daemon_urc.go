package sms

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxDirect bounds the +CDS/+CMT PDUs kept per modem while they wait to
// be recorded (the modem cannot be listed meanwhile); beyond it they are
// dropped with a warning, so that a babbling modem cannot grow memory.
const maxDirect = 1024

// announced gathers what the modems say unsolicited between two receives:
// the modems that announced a stored message or report (+CMTI, +CDSI)
// and the PDUs handed out directly (+CMT, +CDS). kick wakes the receive
// loop; watch runs on the pool's watcher goroutines and never blocks.
type announced struct {
	warn func(error)
	kick chan struct{}

	mu     sync.Mutex
	modems map[string]bool
	direct map[string][]string
}

func newAnnounced(warn func(error)) *announced {
	return &announced{warn: warn, kick: make(chan struct{}, 1), modems: map[string]bool{}, direct: map[string][]string{}}
}

// watch takes one unsolicited line of modem c.
func (a *announced) watch(c *Conn, line string) {
	name := c.Spec.Name
	p, _, _ := strings.Cut(line, ":")
	switch strings.TrimSpace(p) {
	case "+CMTI", "+CDSI":
	case "+CMT", "+CDS":
		pdu, ok := directPDU(line)
		if !ok {
			return
		}
		a.mu.Lock()
		full := len(a.direct[name]) >= maxDirect
		if !full {
			a.direct[name] = append(a.direct[name], pdu)
		}
		a.mu.Unlock()
		if full {
			a.warn(fmt.Errorf("modem %s: %d PDUs wait to be recorded: dropped %s %s", name, maxDirect, p, pdu))
		}
	default:
		return
	}
	a.mu.Lock()
	a.modems[name] = true
	a.mu.Unlock()
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// take returns what was announced since the last take and forgets it.
func (a *announced) take() (modems map[string]bool, direct map[string][]string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	modems, direct = a.modems, a.direct
	a.modems, a.direct = map[string]bool{}, map[string][]string{}
	return modems, direct
}

// putBack keeps the direct PDUs a receive could not record (their modem
// failed or is not open) for the next one, before those announced since.
func (a *announced) putBack(direct map[string][]string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for name, ps := range direct {
		a.direct[name] = append(ps, a.direct[name]...)
	}
}

// receiveLoop receives from every modem at once and every PollEvery, and
// from a modem as soon as it announces something (+CMTI, +CDSI, +CMT,
// +CDS), until ctx ends. It runs beside the sending: the modems
// serialise their commands.
func receiveLoop(ctx context.Context, pool *Pool, st Store, o DaemonOptions, dm *daemonMetrics, an *announced) {
	t := time.NewTicker(o.PollEvery)
	defer t.Stop()
	all := true
	for {
		modems, direct := an.take()
		conns := pool.Conns()
		if !all {
			conns = slices.DeleteFunc(conns, func(c *Conn) bool { return !modems[c.Spec.Name] })
		}
		got, err := daemonReceive(ctx, conns, st, o.Recv, direct)
		an.putBack(direct)
		dm.polled(len(got), err)
		if err != nil && ctx.Err() == nil {
			o.Warn(fmt.Errorf("daemon: receive: %w", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			all = true
		case <-an.kick:
			all = false
		}
	}
}
