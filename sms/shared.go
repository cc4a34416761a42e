package sms

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"calq/sched/journal"
	"calq/sms/store"
)

// SharedStore is a Store that machines share (store.Store on PostgreSQL).
// On it the outbox is handed to daemons on the modem hosts: each daemon
// holds its modems under its host's name (two hosts may both have
// /dev/ttyUSB0), claims queued messages for a lease it renews while it
// sends them, and names its modems host/name in the outbox and inbox.
// calq sms send on any machine records the messages and waits for the
// daemons; it never opens a modem itself.
type SharedStore interface {
	Store
	Shared() bool
	SetOwner(owner string)
	HoldModems(ctx context.Context, owner string, holds []store.ModemHold, lease time.Duration) error
	RenewHolds(ctx context.Context, owner string, ids []int64, lease time.Duration) (int, error)
	ReleaseHolds(ctx context.Context, owner string) error
	ModemsHeld(ctx context.Context) ([]store.ModemHold, error)
	ClaimDueSMS(ctx context.Context, owner string, modems []string, limit int, lease time.Duration) ([]store.SMSMessage, error)
}

// SharedLease is how long a daemon's holds and claims on a shared store
// last without a renewal; they are renewed every third of it. A daemon
// that dies leaves its messages to the others after this long.
var SharedLease = 30 * time.Second

// sharedOf returns s as a SharedStore when it is one and shared.
func sharedOf(s Store) (SharedStore, bool) {
	ss, ok := s.(SharedStore)
	return ss, ok && ss.Shared()
}

// IsShared reports whether s is shared between machines.
func IsShared(s Store) bool {
	_, ok := sharedOf(s)
	return ok
}

// ErrNoDaemon is wrapped by Send on a shared store when no daemon holds a
// modem: the messages stay queued for one (exit status 4, as ErrQueued).
var ErrNoDaemon = fmt.Errorf("%w: no calq sms daemon holds a modem on the shared outbox; the messages wait for one", ErrQueued)

// sharedHold is a daemon's hold on its modems in a shared store, and its
// claims on messages.
type sharedHold struct {
	st      SharedStore
	owner   string
	names   []string                       // its modems, host/name
	sending atomic.Pointer[func() []int64] // the messages whose claims it renews (follow)
	stop    func()
}

// follow makes the renewals extend the claims on the messages sending
// returns (those the daemon's engine has); until then none are renewed.
func (h *sharedHold) follow(sending func() []int64) { h.sending.Store(&sending) }

// claim claims up to limit due messages for the daemon (ClaimDueSMS).
func (h *sharedHold) claim(ctx context.Context, limit int) ([]store.SMSMessage, error) {
	return h.st.ClaimDueSMS(ctx, h.owner, h.names, limit, SharedLease)
}

// holdShared qualifies the names of specs with the host's name and holds
// them in st for the daemon; renewing runs until release. warn receives a
// failed renewal, and a hold found taken over.
func holdShared(ctx context.Context, st SharedStore, specs []ModemSpec, warn func(error)) (*sharedHold, []ModemSpec, error) {
	host, err := os.Hostname()
	if err != nil {
		return nil, nil, fmt.Errorf("daemon: host name: %w", err)
	}
	b := make([]byte, 4)
	rand.Read(b)
	owner := fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b))
	specs = append([]ModemSpec(nil), specs...)
	holds := make([]store.ModemHold, len(specs))
	h := &sharedHold{st: st, owner: owner, names: make([]string, len(specs))}
	for i := range specs {
		specs[i].Name = host + "/" + specs[i].Name
		holds[i] = store.ModemHold{Host: host, Device: specs[i].Device, Name: specs[i].Name}
		h.names[i] = specs[i].Name
	}
	err = st.HoldModems(ctx, owner, holds, SharedLease)
	if errors.Is(err, store.ErrHeld) && releaseDead(ctx, st, host) {
		err = st.HoldModems(ctx, owner, holds, SharedLease)
	}
	if err != nil {
		if errors.Is(err, store.ErrHeld) {
			err = fmt.Errorf("%w: %s", ErrModemHeld, strings.TrimPrefix(err.Error(), store.ErrHeld.Error()+": "))
		}
		return nil, nil, err
	}
	st.SetOwner(owner)
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(SharedLease / 3)
		defer t.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-t.C:
			}
			var ids []int64
			if f := h.sending.Load(); f != nil {
				ids = (*f)()
			}
			n, err := st.RenewHolds(rctx, owner, ids, SharedLease)
			switch {
			case err != nil && rctx.Err() == nil:
				warn(err)
			case err == nil && n < len(holds):
				// Lapsed and taken by nobody yet, or by another daemon:
				// take them again when free.
				if err := st.HoldModems(rctx, owner, holds, SharedLease); err != nil && rctx.Err() == nil {
					warn(fmt.Errorf("daemon: hold the modems again: %w", err))
				}
			}
		}
	}()
	h.stop = func() { cancel(); <-done }
	return h, specs, nil
}

// releaseDead releases the holds and claims of daemons of host whose
// process is gone (killed before it could release them), and reports
// whether there were any. Another host's are left to their lease.
func releaseDead(ctx context.Context, st SharedStore, host string) bool {
	hs, err := st.ModemsHeld(ctx)
	if err != nil {
		return false
	}
	found := false
	for _, h := range hs {
		parts := strings.Split(h.Owner, ":")
		if len(parts) != 3 || parts[0] != host {
			continue
		}
		if pid, err := strconv.Atoi(parts[1]); err == nil && pid != os.Getpid() && !journal.PIDAlive(pid) {
			found = st.ReleaseHolds(ctx, h.Owner) == nil || found
		}
	}
	return found
}

// release stops renewing and gives the modems and the claimed messages
// back.
func (h *sharedHold) release() error {
	h.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.st.ReleaseHolds(ctx, h.owner)
}

// daemonHolds reports whether a live daemon would send o's messages: on a
// shared store any daemon holding a modem, else DaemonHolds.
func daemonHolds(ctx context.Context, o SendOptions) (bool, error) {
	if ss, ok := sharedOf(o.Store); ok {
		hs, err := ss.ModemsHeld(ctx)
		return len(hs) > 0, err
	}
	return DaemonHolds(ctx, o.Journal, o.Modems)
}
