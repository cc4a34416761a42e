package lo

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"calq/internal/debris"
	"calq/internal/homedir"
)

// Options configure a Pool. Zero (or negative) values mean the defaults.
type Options struct {
	Soffice        string        // path of soffice; "" looks it up in PATH as Find does
	Instances      int           // 0 → DefaultInstances()
	StateDir       string        // where profiles, HOME and TMPDIR of instances live, kept between pools (see DefaultStateDir); "" → a temp dir removed by Close, as when it cannot be used (see Pool.Fallback)
	MaxConversions int           // restart an instance after this many conversions (0 → 200)
	MaxRSS         int64         // restart an instance above this resident memory of its process group, checked after the 1st, 9th, 17th... conversion since its start, bytes (0 → 1 GiB, at most MemoryLimit/2)
	MemoryLimit    int64         // kill an instance above this resident memory during a conversion and fail it with ReasonMemoryLimit, bytes (0 → DefaultMemoryLimit)
	StartTimeout   time.Duration // for one instance to start (0 → 60 s)

	// noHardening leaves the profile's security settings at
	// LibreOffice's defaults and RTF fields as they are: for the test
	// that proves the hardening matters.
	noHardening bool
	// noUNO hands documents over by client soffice even when a UNO
	// helper could run: for the tests of that route.
	noUNO bool
	// python replaces findPython's answer, for tests.
	python string
}

const (
	defaultMaxConversions = 200
	defaultMaxRSS         = 1 << 30
	maxMemoryLimit        = 2 << 30
	minMemoryLimit        = 1 << 30
	memorySampleEvery     = 200 * time.Millisecond
)

// defaultStartTimeout is the time one instance has to start unless
// Options say otherwise; the package's tests lengthen it, as they share
// two cores with compilers and other packages' LibreOffice.
var defaultStartTimeout = 60 * time.Second

// DefaultStateDir is where calq convert keeps its instances' profiles
// between runs: calq/libreoffice in the user's cache directory
// ($XDG_CACHE_HOME, else ~/.cache), or "" when there is none. On the
// real-world corpus a run on profiles LibreOffice initialised before took
// 0.2-0.3 s less than on new ones (54 documents, one instance). Each slot (lo-1, lo-2, ...) is locked while a pool uses it, so
// runs at the same time never share a profile; its settings are written
// anew at every start, and its work directory, which holds a copy of the
// document being converted, is emptied.
func DefaultStateDir() string {
	dir, err := homedir.CacheDir() // never relative: HOME unset is no cwd
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "calq", "libreoffice")
}

// DefaultInstances is one instance per core, no more than one per GiB of
// available memory, and at least one.
func DefaultInstances() int {
	// One per core: with documents handed over through a UNO helper no
	// client process leaves a core idle (calq convert bench, 54 real-world
	// documents on 2 cores: 2.3-2.4 s on two instances, 2.7-2.9 s on
	// three). Before the helpers, cores + 1 was faster.
	n := runtime.NumCPU()
	if avail := memAvailable(); avail > 0 {
		n = min(n, int(avail>>30))
	}
	return max(n, 1)
}

// DefaultMemoryLimit is the memory limit of each of n instances when
// Options.MemoryLimit is 0: an equal share of the memory available now,
// between 1 GiB and 2 GiB. The 2 GiB are several times what a warm
// instance converting ordinary office files holds (150-450 MiB measured
// here), while a document built to exhaust memory is stopped early; below
// 1 GiB, which instances are allowed to reach between conversions
// (MaxRSS), files a fresh instance converts would fail.
func DefaultMemoryLimit(n int) int64 {
	limit := int64(maxMemoryLimit)
	if avail := memAvailable(); avail > 0 && n > 0 {
		limit = min(limit, avail/int64(n))
	}
	return max(limit, minMemoryLimit)
}

// memAvailable is MemAvailable from /proc/meminfo in bytes, or 0.
func memAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// Pool is a set of warm LibreOffice instances.
type Pool struct {
	opts     Options
	soffice  string
	dir      string // the state directory
	scratch  string // a temporary directory of slots, removed by Close; "" when none
	fallback error  // why scratch holds slots although Options.StateDir was set
	settings []setting
	insts    []*Instance
	python   string // the python3 for the helpers; "" hands documents over by client soffice
	// unoFailed is set when python has no uno module: later starts hand
	// documents over by client soffice.
	unoFailed atomic.Bool

	closing   chan struct{} // closed by shutdown
	closeOnce sync.Once
	stopAfter func() bool // stops the AfterFunc on New's context

	closeDone sync.Once
	closeErr  error
}

// New starts a pool of instances and waits until every one is ready
// (about 1 s each, in parallel). ctx bounds the wait and the pool's
// life: once ctx is done the instances are killed and conversions fail
// as after Close, which must still be called. The error wraps
// ErrNotInstalled when soffice cannot be found.
func New(ctx context.Context, o Options) (*Pool, error) {
	RemoveDebris()
	soffice, err := lookSoffice(o.Soffice)
	if err != nil {
		return nil, err
	}
	p := &Pool{opts: o, soffice: soffice, closing: make(chan struct{}), settings: hardening}
	if !o.noUNO {
		p.python = cmp.Or(o.python, findPython())
	}
	p.opts.Instances = orDefault(o.Instances, DefaultInstances())
	p.opts.MaxConversions = orDefault(o.MaxConversions, defaultMaxConversions)
	p.opts.MemoryLimit = orDefault(o.MemoryLimit, DefaultMemoryLimit(p.opts.Instances))
	// An instance starts each conversion below MaxRSS: at least half the
	// limit is left to the document.
	p.opts.MaxRSS = orDefault(o.MaxRSS, min(defaultMaxRSS, p.opts.MemoryLimit/2))
	p.opts.StartTimeout = orDefault(o.StartTimeout, defaultStartTimeout)
	if o.noHardening {
		p.settings = nil
	}
	if err := p.claim(); err != nil {
		p.Close()
		return nil, fmt.Errorf("LibreOffice state directory %s: %w", p.dir, err)
	}
	p.stopAfter = context.AfterFunc(ctx, p.shutdown)
	errs := make([]error, len(p.insts))
	var wg sync.WaitGroup
	for n, inst := range p.insts {
		wg.Go(func() { errs[n] = inst.warmUp(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// orDefault is v, or def when v is zero or negative.
func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// claim makes the state directory and takes a slot in it for each
// instance. A slot is a directory lo-K locked with flock while a pool
// uses it, so two calq processes sharing a state directory never share
// a profile (LibreOffice would hand one's documents to the other).
//
// A state directory calq cannot use (read-only, not a directory, a lock
// path that is a directory) costs the profiles kept between runs, not the
// conversions: a slot that fails is skipped, and the instances still
// missing after maxSlotFailures failures take slots in a temporary
// directory, removed by Close. Fallback says why.
func (p *Pool) claim() error {
	if p.opts.StateDir != "" {
		dir, err := filepath.Abs(p.opts.StateDir)
		if err == nil {
			p.dir = dir
			err = p.claimIn(dir)
		}
		if err == nil {
			return nil
		}
		p.fallback = fmt.Errorf("LibreOffice state directory %s: %w", p.opts.StateDir, err)
	}
	d, err := os.MkdirTemp("", debris.Pattern("lo", false))
	if err != nil {
		return err
	}
	p.scratch = d
	if p.dir == "" {
		p.dir = d
	}
	return p.claimIn(d)
}

// maxSlotFailures bounds the slots claimIn tries that fail for another
// reason than another pool's lock.
const maxSlotFailures = 4

// claimIn takes slots in dir until the pool has its instances, or
// returns why it could not.
func (p *Pool) claimIn(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var failed error
	for k, failures := 1, 0; len(p.insts) < p.opts.Instances; k++ {
		if failures == maxSlotFailures {
			return failed
		}
		slot := filepath.Join(dir, fmt.Sprintf("lo-%d", k))
		lock, err := lockSlot(slot + ".lock")
		if errors.Is(err, syscall.EWOULDBLOCK) {
			continue // another pool's
		}
		if err == nil {
			if err = os.MkdirAll(slot, 0o700); err != nil {
				lock.Close()
			}
		}
		if err != nil {
			failures++
			failed = fmt.Errorf("slot lo-%d: %w", k, err)
			continue
		}
		p.insts = append(p.insts, newInstance(p, fmt.Sprintf("lo-%d", len(p.insts)+1), slot, lock))
	}
	return nil
}

// Fallback returns why some or all instances do not keep their profiles
// in Options.StateDir but in a temporary directory, or nil when they all
// do.
func (p *Pool) Fallback() error { return p.fallback }

func lockSlot(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Instances returns the pool's instances, one per Options.Instances.
func (p *Pool) Instances() []*Instance { return p.insts }

// shutdown makes every conversion and start fail with ErrClosed and
// kills every instance and client; it does not wait.
func (p *Pool) shutdown() {
	p.closeOnce.Do(func() {
		close(p.closing)
		for _, i := range p.insts {
			i.killAll()
		}
	})
}

// Close stops every instance, waits for conversions in progress to
// return (with ErrClosed), and removes the state directory if New made
// it. No soffice process of the pool is left afterwards. Later calls
// return the first one's result.
func (p *Pool) Close() error {
	p.closeDone.Do(func() {
		p.shutdown()
		if p.stopAfter != nil {
			p.stopAfter()
		}
		var errs []error
		for _, i := range p.insts {
			errs = append(errs, i.close())
		}
		if p.scratch != "" {
			errs = append(errs, os.RemoveAll(p.scratch))
		}
		p.closeErr = errors.Join(errs...)
	})
	return p.closeErr
}

func (p *Pool) closed() bool {
	select {
	case <-p.closing:
		return true
	default:
		return false
	}
}
