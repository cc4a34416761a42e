package convert

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"calq/convert/lo"
	"calq/convert/pdfpool"
	"calq/convert/sniff"
	"calq/internal/bytestr"
	"calq/internal/debris"
	"calq/sched"
	"calq/sched/pgqueue"
)

// Kind names the job kinds of conversions together, as calq worker
// --kinds and calq history --kind take it: each of Kinds is Kind followed
// by "-" and what it converts.
const Kind = "convert"

// Kinds returns the kinds of conversion jobs, the same in the journal and
// in the shared queue: a file goes by its extension to LibreOffice
// (office) or pdfcpu (image, PDF).
func Kinds() []string { return []string{kindOffice, kindImage, kindPDF} }

// Shared is the queue that calq worker processes on other machines serve
// (sched/pgqueue): Options.Shared hands the files to it. Inputs and
// outputs travel through it as blobs keyed by their SHA-256.
type Shared interface {
	Batch(ctx context.Context, name string, fresh bool) (string, error)
	SubmitOn(ctx context.Context, batch, share string, jobs []*sched.Job) (int, error)
	Follow(ctx context.Context, batch string, fn func(pgqueue.Update)) error
	NewWorker(o pgqueue.WorkerOptions) *pgqueue.Worker
	Unserved(ctx context.Context, kinds []string, share string) error
	States(ctx context.Context, keys []string) (map[string]sched.State, error)
	Blobs
}

// Blobs stores files by content digest: what the submitter and the
// workers exchange.
type Blobs interface {
	PutFile(ctx context.Context, path string) (string, error)
	GetFile(ctx context.Context, digest, path string) error
}

// sharedPayload is a shared conversion job: what a worker needs. The
// input is a blob, or with a shared root a path below it and the digest
// the submitter read there.
type sharedPayload struct {
	Source   bytestr.String `json:"source"`          // the input's path on the submitting machine, for calq history
	Name     bytestr.String `json:"name"`            // the private copy's name: its extension tells LibreOffice the format
	Input    string         `json:"input"`           // the input's blob, or with Path its SHA-256
	Path     bytestr.String `json:"path,omitempty"`  // the input below the shared root, slash-separated (bytes, as file names are)
	Share    string         `json:"share,omitempty"` // with Path: the share's id (ShareID)
	Kind     sniff.Kind     `json:"kind"`
	Page     *sharedPage    `json:"page,omitempty"` // a web page for Chromium (KindHTML): how it prints
	PDFA     int            `json:"pdfa,omitempty"`
	Export   *lo.Export     `json:"export,omitempty"` // never with a password: Check refuses one with Shared
	Timeout  float64        `json:"timeout_seconds"`
	TimeoutS float64        `json:"timeout_s,omitempty"` // what a calq before issue 22 wrote instead
}

// convertShared hands the jobs to the shared queue: each input is copied
// aside and checked as a local run does, stored as a blob and submitted;
// then, as workers record their PDFs, each is fetched beside its output,
// post-processed and placed, in the same order of steps as on one
// machine. With SharedJobs > 0 this process converts too, as a worker
// limited to its own batch; with none, it first makes sure that some
// live worker takes each kind (and mounts the share).
//
// The batch is the command's (sharedBatch): the same command again, after
// an interrupt, collects the PDFs of the jobs the workers finished since
// instead of converting them again; --force starts a new generation.
func (r *runner) convertShared(ctx context.Context, jobs []*sched.Job) error {
	q := r.o.Shared
	share := ""
	if r.o.SharedRoot != "" {
		var err error
		if share, err = ShareID(r.o.SharedRoot); err != nil {
			return err
		}
	}
	batch, err := q.Batch(ctx, r.sharedBatch(), r.o.Force)
	if err != nil {
		return err
	}
	states, err := r.priorStates(ctx, batch, jobs)
	if err != nil {
		return err
	}
	if r.o.SharedJobs == 0 {
		if err := r.checkWorkers(ctx, batch, share, jobs, states); err != nil {
			return err
		}
	}
	stopLocal := func() error { return nil }
	if r.o.SharedJobs > 0 {
		w := q.NewWorker(pgqueue.WorkerOptions{Jobs: r.o.SharedJobs, Batch: batch, Shares: nonEmpty(share)})
		rw, err := NewSharedWorker(ctx, q, r.o.LibreOffice)
		if err != nil {
			return err
		}
		rw.SharedRoot, rw.ShareID = r.o.SharedRoot, share
		for _, k := range Kinds() {
			w.Handle(k, rw)
		}
		stop := w.Start(ctx)
		stopLocal = func() error { return errors.Join(stop(), rw.Close()) }
	}
	// Each file is submitted as soon as it is stored, so that workers
	// start on the first while the others are read.
	byKey := map[string]*sched.Job{}
	inSums := map[int]string{}
	for _, j := range jobs {
		i := jobIndexOf(j)
		sj, inSum, err := r.sharedJob(ctx, batch, share, j)
		if st := states[sharedKey(batch, j)]; err == nil && (st == sched.StateFailed || st == sched.StateTimedOut) {
			// As on one machine, a failure runs again: the fault may be
			// fixed. What is done is collected.
			sj.Key += ":" + strconv.FormatInt(time.Now().UnixNano(), 36)
		}
		if err == nil {
			_, err = q.SubmitOn(ctx, batch, share, []*sched.Job{sj})
		}
		if ctx.Err() != nil {
			return errors.Join(ctx.Err(), stopLocal())
		}
		if err != nil {
			r.event(sched.Event{Type: sched.EventFailed, Job: j, Err: r.hideWork(err, r.items[i].Input)})
			continue
		}
		byKey[sj.Key], inSums[i] = j, inSum
	}
	if len(byKey) == 0 {
		return stopLocal()
	}
	err = q.Follow(ctx, batch, func(u pgqueue.Update) {
		j, ok := byKey[u.Key]
		if !ok {
			return // another run's job in the batch, or one this run has already
		}
		i := jobIndexOf(j)
		ev := sched.Event{Type: sched.EventType(u.State), Job: j, Backend: u.Worker, Attempt: u.Attempt,
			Reason: u.Reason, State: u.State}
		if !u.Started.IsZero() {
			ev.Run = u.Finished.Sub(u.Started)
		}
		if u.Err != "" {
			ev.Err = errors.New(u.Err)
			if u.Reason == "permanent" {
				ev.Err = sched.Permanent(ev.Err)
			}
		}
		switch {
		case !u.Final:
			ev.Type = sched.EventRetry
		case u.State == sched.StateDone:
			var res sharedResult
			if err := json.Unmarshal(u.Result, &res); err != nil || res.PDF == "" && res.Path == "" {
				ev.Type, ev.Err = sched.EventFailed, fmt.Errorf("the worker's result %q names no PDF", u.Result)
			} else if err := r.collect(ctx, i, u.Key, res, inSums[i]); err != nil {
				ev.Type, ev.Err = sched.EventFailed, err
			}
		}
		r.event(ev)
	})
	return errors.Join(err, stopLocal())
}

// sharedBatch names the command's batch in the shared queue: its label,
// output directory, inputs, filters and options, so that running the same
// command again finds it whichever of its files are left to do.
func (r *runner) sharedBatch() string {
	h := sha256.New()
	out, _ := filepath.Abs(r.o.Out)
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00%q\x00%s\x00", r.o.Label, out, r.o.Include, r.o.Exclude, r.opts)
	for _, in := range r.o.Inputs {
		abs, _ := filepath.Abs(in)
		fmt.Fprintf(h, "%s\x00", abs)
	}
	return fmt.Sprintf("convert:%s:%s", r.o.Label, hex.EncodeToString(h.Sum(nil))[:12])
}

// priorStates returns the states of the jobs an earlier run of batch
// submitted (the same command, interrupted), by shared key.
func (r *runner) priorStates(ctx context.Context, batch string, jobs []*sched.Job) (map[string]sched.State, error) {
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		keys[i] = sharedKey(batch, j)
	}
	return r.o.Shared.States(ctx, keys)
}

// checkWorkers fails with the kinds that no live worker takes (mounting
// the share), among the jobs that are not done already: a re-run that
// only collects needs no worker.
func (r *runner) checkWorkers(ctx context.Context, batch, share string, jobs []*sched.Job, states map[string]sched.State) error {
	kinds := map[string]bool{}
	for _, j := range jobs {
		if states[sharedKey(batch, j)] != sched.StateDone {
			kinds[j.Kind] = true
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	err := r.o.Shared.Unserved(ctx, slices.Sorted(maps.Keys(kinds)), share)
	if err != nil && share != "" {
		return fmt.Errorf("--shared-root %s: %w", r.o.SharedRoot, err)
	}
	return err
}

// sharedKey is job j's key in the shared batch: what it turns into what.
func sharedKey(batch string, j *sched.Job) string {
	return batch + "/" + strings.TrimPrefix(j.Key, "convert:")
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// sharedJob copies job j's item aside, checks its content and stores it
// (or, on a share, names it there), and returns its shared job, keyed in
// batch by j's own key (what it turns into what), and the input's digest.
func (r *runner) sharedJob(ctx context.Context, batch, share string, j *sched.Job) (*sched.Job, string, error) {
	i := jobIndexOf(j)
	snap, inSum, err := r.snapshot(ctx, i, r.items[i].Input)
	if err != nil {
		return nil, "", err
	}
	defer os.Remove(snap)
	kind, snap, err := r.sniff(i, snap)
	defer os.Remove(snap) // renamed by sniff, perhaps
	if err != nil {
		return nil, "", err
	}
	p := sharedPayload{Source: bytestr.String(r.items[i].Input), Name: bytestr.String(filepath.Base(snap)), Kind: kind, PDFA: r.o.PDFA,
		Timeout: r.limits[i].Seconds()}
	if !r.o.Export.IsZero() {
		p.Export = &r.o.Export
	}
	if j.Kind == kindHTML {
		p.Page = &sharedPage{PDF: r.o.HTML.page(), Load: r.o.HTML.Load}
	}
	if r.o.SharedRoot != "" {
		// The workers read the input on the share; the digest tells
		// them whether it is still what was submitted.
		path, err := BelowRoot(r.o.SharedRoot, r.items[i].Input)
		if err != nil {
			return nil, "", sched.Permanent(err)
		}
		p.Path = bytestr.String(path)
		p.Input, p.Share = inSum, share
	} else if p.Input, err = r.o.Shared.PutFile(ctx, snap); err != nil {
		return nil, "", err
	}
	payload, _ := json.Marshal(p)
	return &sched.Job{Key: sharedKey(batch, j), Kind: j.Kind, Payload: payload,
		Label: r.o.Label, Class: r.o.Class, Retries: r.o.Retries}, inSum, nil
}

// collect fetches item i's PDF (a blob, or a file on the share) for the
// job key beside its output, post-processes it and places it.
func (r *runner) collect(ctx context.Context, i int, key string, res sharedResult, inSum string) error {
	it := r.items[i]
	tmp, err := r.tempBeside(it.Output)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := r.fetch(ctx, key, res, tmp); err != nil {
		return err
	}
	if !r.o.Post.Empty() && r.o.Merge == "" {
		if err := r.post(ctx, tmp, r.limits[i], r.o.Post); err != nil {
			return err
		}
		if err := r.checkPDFA(ctx, tmp, r.limits[i]); err != nil {
			return err
		}
	}
	return r.place(ctx, it, tmp, inSum)
}

// fetch copies the PDF a worker made for the job key into tmp: from the
// database, or from the share, where it is then removed. Whoever can
// write the queue can write any result, so it is taken only as what this
// job's worker would have made: a blob whose content has the digest it
// claims, or the job's own name in the share's calq directory, reached
// through no symlink; and on both routes, a PDF.
func (r *runner) fetch(ctx context.Context, key string, res sharedResult, tmp string) error {
	if res.Path == "" {
		if err := r.o.Shared.GetFile(ctx, res.PDF, tmp); err != nil {
			return err
		}
		return checkPDF(tmp, "the worker's PDF "+shortDigest(res.PDF))
	}
	name := sharedPDFName(key)
	if r.o.SharedRoot == "" || res.Path != sharedWork+"/"+name {
		return fmt.Errorf("the worker's PDF %q is not this job's %s/%s below --shared-root: refused", res.Path, sharedWork, name)
	}
	src, err := openShared(r.o.SharedRoot, res.Path)
	if err != nil {
		return fmt.Errorf("fetch the PDF from the share: %w", err)
	}
	_, err = copyHashed(ctx, src, tmp)
	src.Close()
	if err != nil {
		return fmt.Errorf("fetch the PDF from the share: %w", err)
	}
	if err := checkPDF(tmp, "the worker's PDF "+res.Path); err != nil {
		return err
	}
	removeBeneath(r.o.SharedRoot, sharedWork, name)
	return nil
}

// checkPDF fails unless the file at path starts as a PDF does; what
// names it in the message.
func checkPDF(path, what string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 5)
	n, _ := io.ReadFull(f, head)
	if string(head[:n]) != "%PDF-" {
		return sched.Permanent(fmt.Errorf("%s is not a PDF (it starts %q): refused", what, head[:n]))
	}
	return nil
}

func shortDigest(d string) string { return d[:min(len(d), 12)] }

// openShared opens rel below the share at root for reading, only when it
// is a regular file reached through no symlink (openBeneath).
func openShared(root, rel string) (*os.File, error) {
	f, err := openBeneath(root, rel, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	if _, err := regular(f, rel); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readShared reads a small file of calq's on the share at root, as
// openShared opens it: a symlink there could make it read anything.
func readShared(root, rel string) ([]byte, error) {
	f, err := openShared(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

// sharedPDFName is the name of the PDF that the worker of the job key
// leaves in the share's calq directory.
func sharedPDFName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:12]) + ".pdf"
}

// BelowRoot returns path relative to root, slash-separated, or an error
// when it is not below root: the paths a job on a shared root names.
func BelowRoot(root, path string) (string, error) {
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(rootAbs, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("not below --shared-root %s", root)
	}
	return filepath.ToSlash(rel), nil
}

// sharedWork is the directory below a shared root where workers leave
// their PDFs for the submitter.
const sharedWork = ".calq-shared"

// SharedWorker converts the shared queue's files (the kinds of Kinds) for
// calq worker: it fetches the input, converts it on its own pool of warm
// LibreOffice instances (started at the first office file and kept
// between jobs) or through pdfcpu, and stores the PDF as the job's
// result. Post-processing stays with the submitter.
type SharedWorker struct {
	blobs   Blobs
	pool    *lazyPool
	own     *pdfpool.Pool // its pdf helpers, unless PDF is set
	dir     string
	release func() error // removes dir and drops its lock
	next    atomic.Int64

	// SharedRoot is where this machine mounts the share that jobs
	// submitted with --shared-root name their files below, and ShareID
	// that share's id (ShareID).
	SharedRoot, ShareID string
	// PDF, set before the first job, does its pdfcpu work (calq serve's
	// helpers); else it has helpers of its own.
	PDF *pdfpool.Pool
	// Pages, set before the first job, prints web pages (KindHTML):
	// only a worker that has Chromium handles that kind.
	Pages PageConverter
}

// NewSharedWorker makes a worker whose LibreOffice instances live as long
// as ctx; Close stops them and removes its work directory.
func NewSharedWorker(ctx context.Context, blobs Blobs, o lo.Options) (*SharedWorker, error) {
	return newSharedWorker(blobs, &lazyPool{opts: o, base: context.WithoutCancel(ctx)})
}

// NewSharedWorkerOn makes a worker that converts on pool, instances
// already started and used by others too (calq serve's, whose requests
// take turns on them with the worker's jobs: each instance converts one
// document at a time). Close removes its work directory and leaves pool
// running.
func NewSharedWorkerOn(blobs Blobs, pool *lo.Pool) (*SharedWorker, error) {
	if pool == nil {
		return nil, errors.New("convert worker: no LibreOffice pool")
	}
	return newSharedWorker(blobs, &lazyPool{pool: pool, shared: true})
}

func newSharedWorker(blobs Blobs, pool *lazyPool) (*SharedWorker, error) {
	// A worker killed with SIGKILL leaves its directory, with copies of
	// inputs and PDFs: the next worker's start removes those of workers
	// that are gone (the current user's only, and never a live one's).
	debris.Sweep(os.TempDir(), "worker")
	dir, release, err := debris.MkdirLocked("", "worker")
	if err != nil {
		return nil, fmt.Errorf("convert worker: work directory: %w", err)
	}
	return &SharedWorker{blobs: blobs, dir: dir, release: release, pool: pool, own: pdfpool.New(pdfpool.Options{})}, nil
}

// Close stops the LibreOffice instances and the pdf helpers it started
// and removes the work directory.
func (w *SharedWorker) Close() error {
	err := w.pool.close()
	w.own.Close()
	return errors.Join(err, w.release())
}

// Run converts one shared job.
func (w *SharedWorker) Run(ctx context.Context, j *sched.Job) error {
	var p sharedPayload
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.Input == "" || p.Kind == sniff.Unknown {
		return sched.Permanent(fmt.Errorf("convert job %s: bad payload", j.Key))
	}
	n := w.next.Add(1)
	dir := filepath.Join(w.dir, strconv.FormatInt(n, 10))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("convert job %s: %w", j.Key, err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in"+lo.SafeExt(string(p.Name)))
	if err := w.input(ctx, p, in); err != nil {
		return err
	}
	out := filepath.Join(dir, "out.pdf")
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	f.Close()
	limit := time.Duration(cmp.Or(p.Timeout, p.TimeoutS) * float64(time.Second))
	if limit <= 0 {
		limit = 10 * time.Minute
	}
	var export lo.Export
	if p.Export != nil {
		export = *p.Export
	}
	r := &runner{o: Options{PDFA: p.PDFA, Export: export}, work: &workDir{dir: dir}, pool: w.pool, pdf: cmp.Or(w.PDF, w.own), limits: []time.Duration{limit},
		results: make([]FileResult, 1), items: []Item{{Input: in, Real: in}}}
	if err := w.pageJob(r, j, p, in); err != nil {
		return err
	}
	if err := r.produce(ctx, 0, int(n), p.Kind, in, out); err != nil {
		return r.hideWork(err, string(cmp.Or(p.Source, p.Name)))
	}
	res, err := w.output(ctx, p, j.Key, out)
	if err != nil {
		return err
	}
	// The kinds that went through LibreOffice: its pool is started.
	if p.Kind == sniff.Office || p.Kind == sniff.Image && p.PDFA != 0 {
		pool, _ := w.pool.get()
		insts := pool.Instances()
		inst := insts[int(n)%len(insts)]
		res.Instance, res.Starts = inst.Name(), inst.Starts()
	}
	b, _ := json.Marshal(res)
	pgqueue.SetResult(ctx, b)
	return nil
}

// input puts the job's input at in: from the database, or copied from the
// share while hashing, to check it is what was submitted.
func (w *SharedWorker) input(ctx context.Context, p sharedPayload, in string) error {
	if p.Path == "" {
		return w.blobs.GetFile(ctx, p.Input, in)
	}
	if w.SharedRoot == "" || p.Share != "" && p.Share != w.ShareID {
		// The claim keeps such jobs from this worker; one from a calq
		// before issue 22 names no share.
		return sched.Permanent(fmt.Errorf("the job names a file on the share %s, which this worker does not mount; start calq worker with --shared-root", cmp.Or(p.Share, "of its submitter")))
	}
	path := string(p.Path)
	if !filepath.IsLocal(filepath.FromSlash(path)) {
		return sched.Permanent(fmt.Errorf("the job's path %q is not below the shared root", path))
	}
	src, err := openShared(w.SharedRoot, path)
	if err != nil {
		return sched.Permanent(fmt.Errorf("read %s on the share: %w", path, err))
	}
	defer src.Close()
	got, err := copyHashed(ctx, src, in)
	if err != nil {
		return fmt.Errorf("read %s on the share: %w", path, err)
	}
	if got != p.Input {
		return sched.Permanent(fmt.Errorf("%s changed on the share since it was submitted", path))
	}
	return nil
}

// output hands the PDF at out to the submitter: as a blob, or for a job
// on a shared root as a file in the share's calq directory.
func (w *SharedWorker) output(ctx context.Context, p sharedPayload, key, out string) (sharedResult, error) {
	var res sharedResult
	if p.Path == "" {
		var err error
		res.PDF, err = w.blobs.PutFile(ctx, out)
		return res, err
	}
	name := sharedPDFName(key)
	if err := writeShared(ctx, w.SharedRoot, name, out); err != nil {
		return res, fmt.Errorf("write the PDF on the share: %w", err)
	}
	res.Path = sharedWork + "/" + name
	return res, nil
}

// sharedResult is a shared conversion's result: the PDF's blob, and the
// LibreOffice instance that made it with its start count (1 while it
// stays warm between jobs).
type sharedResult struct {
	PDF      string `json:"pdf,omitempty"`
	Path     string `json:"path,omitempty"` // the PDF below the shared root, instead of a blob
	Instance string `json:"instance,omitempty"`
	Starts   int    `json:"starts,omitempty"`
}

// shareIDFile is the file below a shared root that holds the share's id.
const shareIDFile = sharedWork + "/id"

// ShareID returns the id of the share mounted at root, from its
// .calq-shared/id; whoever first uses the share writes one. Two machines
// that mount one share at different paths read the same id, which the
// share's jobs carry and the workers that mount it register.
func ShareID(root string) (string, error) {
	path := filepath.Join(root, filepath.FromSlash(shareIDFile))
	for range 2 {
		b, err := readShared(root, shareIDFile)
		if err == nil {
			id := strings.TrimSpace(string(b))
			if len(id) < 8 || strings.ContainsAny(id, " \t\n/") {
				return "", fmt.Errorf("share %s: %s holds no share id", root, path)
			}
			return id, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("share %s: %w", root, err)
		}
		if err := writeShareID(root, path); err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("share %s: %s vanished as it was written", root, path)
}

// writeShareID writes a new id at path, unless another process wrote one
// first: the id is written aside and linked into place, which fails when
// the name exists.
func writeShareID(root, path string) error {
	d, err := sharedWorkDir(root)
	if err != nil {
		return fmt.Errorf("share %s: %w", root, err)
	}
	d.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".id.*")
	if err != nil {
		return fmt.Errorf("share %s: %w", root, err)
	}
	defer os.Remove(tmp.Name())
	var b [12]byte
	rand.Read(b[:])
	_, err = tmp.WriteString(hex.EncodeToString(b[:]) + "\n")
	if err = errors.Join(err, tmp.Close()); err != nil {
		return fmt.Errorf("share %s: %w", root, err)
	}
	os.Chmod(tmp.Name(), 0o644) // the other machines' workers read it
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("share %s: write its id: %w", root, err)
	}
	return nil
}
