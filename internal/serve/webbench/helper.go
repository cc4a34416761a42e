package webbench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"calq/internal/proc"
)

// helperName is the load helper: the clients of a Load, in a process
// of their own so that their CPU is not the server's.
const helperName = "webbench-load"

func init() { proc.RegisterHelper(helperName, serveLoads) }

// serveLoads runs the Loads it reads, one JSON line each, and answers
// each with its Outcome's line, until its input ends.
func serveLoads(in io.Reader, out io.Writer) int {
	dec, enc := json.NewDecoder(in), json.NewEncoder(out)
	for {
		var l Load
		if err := dec.Decode(&l); err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			enc.Encode(Outcome{Err: fmt.Sprintf("load helper: %v", err)})
			return 1
		}
		if err := enc.Encode(l.Run(context.Background())); err != nil {
			return 1
		}
	}
}

// loader runs Loads in the helper, or in calq's own process where
// helpers cannot run (then Separate is false: the process's CPU is not
// the server's alone).
type loader struct {
	Separate bool
	mu       sync.Mutex
	h        *proc.Helper
	out      *bufio.Reader
}

func newLoader(stderr io.Writer) (*loader, error) {
	h, err := proc.StartHelper(helperName, stderr)
	if errors.Is(err, proc.ErrNoHelpers) {
		return &loader{}, nil
	}
	if err != nil {
		return nil, err
	}
	return &loader{Separate: true, h: h, out: bufio.NewReader(h.Out)}, nil
}

// run runs l and returns its Outcome, or its error. A cancelled ctx
// kills the helper (the loader is done then).
func (ld *loader) run(ctx context.Context, l Load) (Outcome, error) {
	if !ld.Separate {
		return outcome(l.Run(ctx))
	}
	ld.mu.Lock()
	defer ld.mu.Unlock()
	stop := context.AfterFunc(ctx, ld.h.Kill)
	defer stop()
	if err := json.NewEncoder(ld.h.In).Encode(l); err != nil {
		return Outcome{}, fmt.Errorf("load helper: %w", errors.Join(err, ctx.Err()))
	}
	line, err := ld.out.ReadBytes('\n')
	if err != nil {
		return Outcome{}, fmt.Errorf("load helper: %w", errors.Join(err, ctx.Err()))
	}
	var o Outcome
	if err := json.Unmarshal(line, &o); err != nil {
		return Outcome{}, fmt.Errorf("load helper: %w", err)
	}
	return outcome(o)
}

func outcome(o Outcome) (Outcome, error) {
	if o.Err != "" {
		return o, errors.New(o.Err)
	}
	return o, nil
}

// close ends the helper.
func (ld *loader) close() {
	if ld.h != nil {
		ld.h.Kill()
	}
}
