package sms

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"calq/internal/dburl"
	"calq/internal/pgdb"
	"calq/sched/journal"
	"calq/sms/store"
)

// StatePath is this machine's journal file for the shared database at
// url: sms-<digest>.db in stateDir, the digest of its address without the
// password. It holds the engine of a daemon or worker sending from it, and
// the spool of the messages calq sms send kept while it was down. It is ""
// when stateDir is.
func StatePath(stateDir, url string) string {
	if stateDir == "" {
		return "" // no home: journal.Open says so
	}
	sum := sha256.Sum256([]byte(dburl.Redact(url)))
	return filepath.Join(stateDir, "sms-"+hex.EncodeToString(sum[:6])+".db")
}

// Spoolable reports whether err, from opening the shared outbox, says its
// server is away (not a refusal, nor an interrupt): what a sender then
// keeps on this machine (Spool) rather than lose.
func Spoolable(err error) bool { return pgdb.Transient(err) }

// Spool keeps msgs in the spool of the journal file at path, for the
// shared database at addr (its address without the password).
func Spool(ctx context.Context, path, addr string, msgs []store.SMSMessage) (sps []store.Spooled, err error) {
	err = withSpoolFile(ctx, path, true, func(sp *store.Spool) error {
		sps, err = sp.Add(ctx, addr, msgs, time.Now())
		return err
	})
	return sps, err
}

// withSpoolFile runs fn on the spool in the journal file at path. Unless
// create is set, a file that does not exist is an empty spool: fn does
// not run, and nothing is created.
func withSpoolFile(ctx context.Context, path string, create bool, fn func(*store.Spool) error) (err error) {
	if !create {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	jn, err := journal.Open(ctx, path, journal.Options{})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, jn.Close()) }()
	sp, err := store.OpenSpool(ctx, jn)
	if err != nil {
		return err
	}
	return fn(sp)
}

// SpooledMessages lists the messages spooled on this machine for the
// shared database at url, as outbox messages in state spooled (no id: the
// shared outbox has given them none yet).
func SpooledMessages(ctx context.Context, stateDir, url string) ([]store.SMSMessage, error) {
	path := StatePath(stateDir, url)
	var sps []store.Spooled
	err := withSpoolFile(ctx, path, false, func(sp *store.Spool) (err error) {
		sps, err = sp.List(ctx, dburl.Redact(url))
		return err
	})
	if err != nil {
		return nil, err
	}
	ms := make([]store.SMSMessage, len(sps))
	for i, s := range sps {
		ms[i] = s.Message
		ms[i].ID, ms[i].State, ms[i].Updated = 0, store.SMSSpooled, s.Message.Created
		ms[i].Reason = "kept in " + path + " until the database answers"
		for j := range ms[i].Parts {
			ms[i].Parts[j].State, ms[i].Parts[j].MR = store.SMSPending, -1
		}
	}
	return ms, nil
}

// Forwarded says which spooled messages went to a shared outbox.
type Forwarded struct {
	Path string  // the spool's journal file
	Addr string  // the shared database, without its password
	IDs  []int64 // their ids in its outbox
}

// String reads "forwarded 2 messages spooled in PATH to ADDR: ids 7, 8".
func (f Forwarded) String() string {
	noun := "messages"
	if len(f.IDs) == 1 {
		noun = "message"
	}
	ids := make([]string, len(f.IDs))
	for i, id := range f.IDs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	return fmt.Sprintf("forwarded %d %s spooled in %s to %s: ids %s", len(f.IDs), noun, f.Path, f.Addr, strings.Join(ids, ", "))
}

// forward moves the messages spooled on this machine for s's shared
// database into its outbox, once each, and tells s.o.Forwarded. When s
// holds no journal of this machine, the file is opened only when it
// exists. What it could not forward stays spooled, for the next caller.
func (s *Stores) forward(ctx context.Context) error {
	path, addr := StatePath(s.o.StateDir, s.db), dburl.Redact(s.db)
	forward := func(sp *store.Spool) error {
		ids, err := sp.Forward(ctx, addr, s.Store)
		if len(ids) > 0 && s.o.Forwarded != nil {
			s.o.Forwarded(Forwarded{Path: path, Addr: addr, IDs: ids})
		}
		return err
	}
	var err error
	if s.Journal != nil {
		var sp *store.Spool
		if sp, err = store.OpenSpool(ctx, s.Journal); err == nil {
			err = forward(sp)
		}
	} else {
		err = withSpoolFile(ctx, path, false, forward)
	}
	if err != nil {
		return fmt.Errorf("forward the sms spooled in %s: %w", path, err)
	}
	return nil
}
