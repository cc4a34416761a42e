package journal

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // the "sqlite" driver: pure Go, so calq stays static
	sqlite3 "modernc.org/sqlite/lib"

	"calq/internal/dburl"
	"calq/sched"
)

// Options configure Open. The zero value is ready to use.
type Options struct {
	Lease time.Duration    // how long a claim holds without a heartbeat; 30s when zero
	Now   func() time.Time // the clock; time.Now when nil
	Host  string           // this host's name in owner records; os.Hostname when empty
	Pid   int              // this process's id in owner records; os.Getpid when zero
}

// DefaultLease is the lease of a claim when Options.Lease is zero.
const DefaultLease = 30 * time.Second

// ErrClosed is returned by the methods of a closed Journal.
var ErrClosed = errors.New("journal closed")

// ErrNotHeld is returned by Finish for a job this Journal does not hold:
// it was never claimed here, or another process recovered it after the
// lease ran out.
var ErrNotHeld = errors.New("job not held by this process")

// Journal is an open journal file. See the package documentation.
type Journal struct {
	db        *sql.DB
	path      string
	opts      Options
	owner     string
	stmts     [numStmts]*sql.Stmt
	cache     stmtCache // the statements run by text in the writer
	recovered int

	mu     sync.RWMutex // guards closed against the sends of do
	closed bool
	reqs   chan *request
	wrote  chan struct{} // closed when the writer has returned

	lastBatch int // requests in the writer's last commit; only the writer uses it

	stopBeat context.CancelFunc
	beat     chan struct{} // closed when the heartbeat has returned

	closeOnce sync.Once
	closeErr  error
}

var _ sched.Journal = (*Journal)(nil)

// DefaultPath is where calq keeps its journal: under $XDG_STATE_HOME when
// that is an absolute path, as the XDG base directory spec asks, else under
// $HOME/.local/state. The caller passes both values.
func DefaultPath(xdgStateHome, home string) string {
	if filepath.IsAbs(xdgStateHome) {
		return filepath.Join(xdgStateHome, "calq", "calq.db")
	}
	return filepath.Join(home, ".local", "state", "calq", "calq.db")
}

// Open opens the journal at path, creating the file and its directory
// (mode 0700) when missing, and recovers the jobs that dead or silent
// processes left running. The caller must Close it.
func Open(ctx context.Context, path string, opts Options) (*Journal, error) {
	if dburl.HasScheme(path) || dburl.IsPostgres(path) || dburl.HasPassword(path) {
		// A URL (postgres://...) or a keyword/value string given to a
		// command that keeps its journal in SQLite: a file must not be
		// made under "postgres:" or named "host=... password=..." (even
		// when pgx could not read it either).
		return nil, fmt.Errorf("journal %s: a database address, not a file: this command keeps its journal in SQLite, give a file path", dburl.Redact(path))
	}
	if err := checkFile(path); err != nil {
		return nil, err
	}
	j, err := open(ctx, path, opts)
	if err != nil {
		return nil, openError(path, err)
	}
	return j, nil
}

func open(ctx context.Context, path string, opts Options) (*Journal, error) {
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	if strings.Contains(path, "?") {
		// The driver reads what follows a '?' as its parameters.
		return nil, errors.New(`path contains "?"`)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// A new journal is private: SQLite gives its -wal and -shm files the
	// mode of the journal itself, whatever the umask.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"+
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"+
		// Reads through a memory map and a 64 MiB page cache, not a pread
		// per page: the key index is written in random order.
		"&_pragma=mmap_size(268435456)&_pragma=cache_size(-65536)")
	if err != nil {
		return nil, err
	}
	j := &Journal{db: db, path: path, opts: opts, owner: owner(opts.Host, opts.Pid)}
	if err := j.setup(ctx); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	j.start()
	return j, nil
}

func withDefaults(o Options) (Options, error) {
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Pid == 0 {
		o.Pid = os.Getpid()
	}
	if o.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return o, err
		}
		o.Host = h
	}
	return o, nil
}

// owner names this Open in the jobs it holds. The random tag tells two
// Journals of one process apart, and a process from an earlier one that
// had the same pid.
func owner(host string, pid int) string {
	var tag [4]byte
	rand.Read(tag[:])
	return fmt.Sprintf("%s:%d:%s", host, pid, hex.EncodeToString(tag[:]))
}

// setup brings the schema up to date, prepares the statements of the hot
// path and recovers orphaned jobs.
func (j *Journal) setup(ctx context.Context) error {
	if err := retryBusy(ctx, func() error { return migrate(ctx, j.db) }); err != nil {
		return err
	}
	for id, q := range stmtSQL {
		s, err := j.db.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		j.stmts[id] = s
	}
	return retryBusy(ctx, func() error {
		return j.inTx(ctx, func(t *txn) (err error) {
			j.recovered, err = recoverOrphans(t, j.opts.Host, j.now())
			return err
		})
	})
}

// retryBusy runs fn again while it fails with SQLITE_BUSY, for up to 10 s.
// The busy timeout covers most waits for another process's lock, but not
// all: a connection's first use (switching a new file to WAL, recovering
// another process's WAL) can report busy at once, and two calq processes
// opening one journal together meet exactly that.
func retryBusy(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(10 * time.Second)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := fn()
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// start starts the writer and the heartbeat; Close stops them.
func (j *Journal) start() {
	j.reqs = make(chan *request, maxBatch)
	j.wrote = make(chan struct{})
	go j.write()
	ctx, cancel := context.WithCancel(context.Background())
	j.stopBeat = cancel
	j.beat = make(chan struct{})
	go j.heartbeat(ctx)
}

// Recovered returns how many jobs Open gave back to the queue because
// their owner had died or its lease had expired.
func (j *Journal) Recovered() int { return j.recovered }

func (j *Journal) now() time.Time { return j.opts.Now() }

// Close commits the writes already requested, returns the jobs this
// Journal still holds to the queue, stops its goroutines and closes the
// file. Later calls return the first call's result.
func (j *Journal) Close() error {
	j.closeOnce.Do(func() { j.closeErr = j.shutdown(true) })
	return j.closeErr
}

// shutdown is Close; release false leaves held jobs running, as a crash
// would (tests use it).
func (j *Journal) shutdown(release bool) error {
	j.stopBeat()
	<-j.beat
	j.mu.Lock()
	j.closed = true
	j.mu.Unlock()
	close(j.reqs) // no sender is left: do checks closed under mu
	<-j.wrote
	var err error
	if release {
		err = j.inTx(context.Background(), func(t *txn) error {
			_, err := releaseOwned(t, j.owner, j.now())
			return err
		})
	}
	if err != nil {
		err = fmt.Errorf("close journal %s: release jobs: %w", j.path, err)
	}
	return errors.Join(err, j.cache.close(), j.db.Close())
}
