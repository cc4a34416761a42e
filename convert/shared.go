package convert

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/sniff"
	"calq/sched"
	"calq/sched/pgqueue"
)

// RemoteKind is the job kind of a file converted by calq worker.
const RemoteKind = "convert"

// Shared is the queue that calq worker processes on other machines serve
// (sched/pgqueue): Options.Shared hands the files to it. Inputs and
// outputs travel through it as blobs keyed by their SHA-256.
type Shared interface {
	Batch(ctx context.Context, name string) (string, error)
	Submit(ctx context.Context, batch string, jobs []*sched.Job) (int, error)
	Follow(ctx context.Context, batch string, fn func(pgqueue.Update)) error
	NewWorker(o pgqueue.WorkerOptions) *pgqueue.Worker
	Blobs
}

// Blobs stores files by content digest: what the submitter and the
// workers exchange.
type Blobs interface {
	PutFile(ctx context.Context, path string) (string, error)
	GetFile(ctx context.Context, digest, path string) error
}

// remotePayload is a shared conversion job: what a worker needs, and no
// path of the submitting machine.
type remotePayload struct {
	Source   string     `json:"source"` // the input's path on the submitting machine, for calq history
	Name     string     `json:"name"`   // the private copy's name: its extension tells LibreOffice the format
	Input    string     `json:"input"`  // the input's blob
	Kind     sniff.Kind `json:"kind"`
	PDFA     int        `json:"pdfa,omitempty"`
	TimeoutS float64    `json:"timeout_s"`
}

// convertShared hands the jobs to the shared queue: each input is copied
// aside and checked as a local run does, stored as a blob and submitted;
// then, as workers record their PDFs, each is fetched beside its output,
// post-processed and placed, in the same order of steps as on one
// machine. With SharedJobs > 0 this process converts too, as a worker
// limited to its own batch.
func (r *runner) convertShared(ctx context.Context, jobs []*sched.Job) error {
	q := r.o.Shared
	h := sha256.New()
	for _, j := range jobs {
		fmt.Fprintf(h, "%s\x00", j.Key)
	}
	batch, err := q.Batch(ctx, fmt.Sprintf("convert:%s:%s", r.o.Label, hex.EncodeToString(h.Sum(nil))[:12]))
	if err != nil {
		return err
	}
	byIndex := map[int]*sched.Job{}
	inSums := map[int]string{}
	var submit []*sched.Job
	for _, j := range jobs {
		i := jobIndexOf(j)
		byIndex[i] = j
		sj, inSum, err := r.remoteJob(ctx, batch, i)
		if err != nil {
			r.event(sched.Event{Type: sched.EventFailed, Job: j, Err: r.hideWork(err, r.items[i].Input)})
			continue
		}
		inSums[i] = inSum
		submit = append(submit, sj)
	}
	if len(submit) == 0 {
		return nil
	}
	if _, err := q.Submit(ctx, batch, submit); err != nil {
		return err
	}
	stopLocal := func() error { return nil }
	if r.o.SharedJobs > 0 {
		w := q.NewWorker(pgqueue.WorkerOptions{Jobs: r.o.SharedJobs, Batch: batch})
		rw, err := NewRemoteWorker(ctx, q, r.o.LibreOffice)
		if err != nil {
			return err
		}
		w.Handle(RemoteKind, rw)
		stop := w.Start(ctx)
		stopLocal = func() error { return errors.Join(stop(), rw.Close()) }
	}
	err = q.Follow(ctx, batch, func(u pgqueue.Update) {
		i, err := strconv.Atoi(u.Key[strings.LastIndexByte(u.Key, '/')+1:])
		j := byIndex[i]
		if err != nil || j == nil {
			return
		}
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
			var res remoteResult
			if err := json.Unmarshal(u.Result, &res); err != nil || res.PDF == "" {
				ev.Type, ev.Err = sched.EventFailed, fmt.Errorf("the worker's result %q names no PDF", u.Result)
			} else if err := r.collect(ctx, i, res.PDF, inSums[i]); err != nil {
				ev.Type, ev.Err = sched.EventFailed, err
			}
		}
		r.event(ev)
	})
	return errors.Join(err, stopLocal())
}

// remoteJob copies item i aside, checks its content and stores it, and
// returns its shared job and the input's digest.
func (r *runner) remoteJob(ctx context.Context, batch string, i int) (*sched.Job, string, error) {
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
	digest, err := r.o.Shared.PutFile(ctx, snap)
	if err != nil {
		return nil, "", err
	}
	p, _ := json.Marshal(remotePayload{Source: r.items[i].Input, Name: filepath.Base(snap), Input: digest, Kind: kind, PDFA: r.o.PDFA,
		TimeoutS: r.limits[i].Seconds()})
	return &sched.Job{Key: batch + "/" + strconv.Itoa(i), Kind: RemoteKind, Payload: p, Label: r.o.Label,
		Class: r.o.Class, Retries: r.o.Retries}, inSum, nil
}

// collect fetches item i's PDF (blob digest) beside its output,
// post-processes it and places it.
func (r *runner) collect(ctx context.Context, i int, digest, inSum string) error {
	it := r.items[i]
	tmp, err := r.tempBeside(it.Output)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := r.o.Shared.GetFile(ctx, digest, tmp); err != nil {
		return err
	}
	if !postEmpty(r.o.Post) && r.o.Merge == "" {
		if err := pdf.Apply(ctx, tmp, tmp, r.o.Post); err != nil {
			return fmt.Errorf("post-process: %w", err)
		}
		if err := r.checkPDFA(ctx, tmp); err != nil {
			return err
		}
	}
	return r.place(ctx, it, tmp, inSum)
}

// RemoteWorker converts the shared queue's files (kind RemoteKind) for
// calq worker: it fetches the input, converts it on its own pool of warm
// LibreOffice instances (started at the first office file and kept
// between jobs) or through pdfcpu, and stores the PDF as the job's
// result. Post-processing stays with the submitter.
type RemoteWorker struct {
	blobs Blobs
	pool  *lazyPool
	dir   string
	next  atomic.Int64
}

// NewRemoteWorker makes a worker whose LibreOffice instances live as long
// as ctx; Close stops them and removes its work directory.
func NewRemoteWorker(ctx context.Context, blobs Blobs, o lo.Options) (*RemoteWorker, error) {
	dir, err := os.MkdirTemp("", "calq-worker-")
	if err != nil {
		return nil, fmt.Errorf("convert worker: %w", err)
	}
	return &RemoteWorker{blobs: blobs, dir: dir, pool: &lazyPool{opts: o, base: context.WithoutCancel(ctx)}}, nil
}

// Close stops the LibreOffice instances and removes the work directory.
func (w *RemoteWorker) Close() error {
	err := w.pool.close()
	return errors.Join(err, os.RemoveAll(w.dir))
}

// Run converts one shared job.
func (w *RemoteWorker) Run(ctx context.Context, j *sched.Job) error {
	var p remotePayload
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.Input == "" || p.Kind == sniff.Unknown {
		return sched.Permanent(fmt.Errorf("convert job %s: bad payload", j.Key))
	}
	n := w.next.Add(1)
	dir := filepath.Join(w.dir, strconv.FormatInt(n, 10))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("convert job %s: %w", j.Key, err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in"+lo.SafeExt(p.Name))
	if err := w.blobs.GetFile(ctx, p.Input, in); err != nil {
		return err
	}
	out := filepath.Join(dir, "out.pdf")
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	f.Close()
	limit := time.Duration(p.TimeoutS * float64(time.Second))
	if limit <= 0 {
		limit = 10 * time.Minute
	}
	r := &runner{o: Options{PDFA: p.PDFA}, work: &workDir{dir: dir}, pool: w.pool, limits: []time.Duration{limit},
		results: make([]FileResult, 1)}
	if err := r.produce(ctx, 0, int(n), p.Kind, in, out); err != nil {
		return r.hideWork(err, cmp.Or(p.Source, p.Name))
	}
	res := remoteResult{}
	if res.PDF, err = w.blobs.PutFile(ctx, out); err != nil {
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

// remoteResult is a shared conversion's result: the PDF's blob, and the
// LibreOffice instance that made it with its start count (1 while it
// stays warm between jobs).
type remoteResult struct {
	PDF      string `json:"pdf"`
	Instance string `json:"instance,omitempty"`
	Starts   int    `json:"starts,omitempty"`
}
