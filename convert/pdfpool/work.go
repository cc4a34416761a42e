package pdfpool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"calq/convert/pdf"
	"calq/internal/proc"
)

// helperName is the helper's name for proc.
const helperName = "pdf"

func init() { proc.RegisterHelper(helperName, serveHelper) }

// request is one operation for a helper; paths are absolute.
type request struct {
	Op     string         `json:"op"`
	In     []string       `json:"in"`
	Out    string         `json:"out,omitempty"`
	Post   *pdf.Post      `json:"post,omitempty"`
	Split  *pdf.SplitSpec `json:"split,omitempty"`
	Memory int64          `json:"memory,omitempty"` // the helper's limit: its garbage collector keeps under three quarters of it
}

// reply is a helper's answer to a request.
type reply struct {
	Err   *wireError        `json:"error,omitempty"`
	Parts []string          `json:"parts,omitempty"` // Split's files
	Meta  map[string]string `json:"meta,omitempty"`  // ReadMetadata's
	PDFA  pdf.Conformance   `json:"pdfa"`
	Marks []pdf.Bookmark    `json:"bookmarks,omitempty"` // ReadBookmarks'
}

// ops are the operations a helper does, by name: package pdf's
// functions. Tests add their own.
var ops = map[string]func(r request) reply{
	"apply":        func(r request) reply { return errReply(pdf.Apply(context.Background(), r.In[0], r.Out, *r.Post)) },
	"pass-through": func(r request) reply { return errReply(pdf.PassThrough(context.Background(), r.In[0], r.Out)) },
	"merge":        func(r request) reply { return errReply(pdf.Merge(context.Background(), r.In, r.Out)) },
	"images":       func(r request) reply { return errReply(pdf.FromImages(context.Background(), r.In, r.Out)) },
	"split": func(r request) reply {
		parts, err := pdf.Split(context.Background(), r.In[0], r.Out, *r.Split)
		return reply{Parts: parts, Err: toWire(err)}
	},
	"metadata": func(r request) reply {
		m, err := pdf.ReadMetadata(context.Background(), r.In[0])
		return reply{Meta: m, Err: toWire(err)}
	},
	"bookmarks": func(r request) reply {
		b, err := pdf.ReadBookmarks(context.Background(), r.In[0])
		return reply{Marks: b, Err: toWire(err)}
	},
	"pdfa": func(r request) reply {
		c, err := pdf.PDFA(context.Background(), r.In[0])
		return reply{PDFA: c, Err: toWire(err)}
	},
}

func errReply(err error) reply { return reply{Err: toWire(err)} }

// do runs one request.
func do(r request) reply {
	op, ok := ops[r.Op]
	if !ok || len(r.In) == 0 || r.Op == "apply" && r.Post == nil || r.Op == "split" && r.Split == nil {
		return errReply(fmt.Errorf("pdfpool: bad request %q", r.Op))
	}
	return op(r)
}

// serveHelper is the helper's body: one request at a time from calq, one
// reply each. It exits at once when calq closes the pipe or dies, even in
// the middle of an operation.
func serveHelper(in io.Reader, out io.Writer) int {
	reqs := make(chan request)
	go func() {
		dec := json.NewDecoder(in)
		for {
			var r request
			if err := dec.Decode(&r); err != nil {
				if err == io.EOF {
					os.Exit(0)
				}
				fmt.Fprintf(os.Stderr, "calq: pdf helper: %v\n", err)
				os.Exit(2)
			}
			reqs <- r
		}
	}()
	enc := json.NewEncoder(out)
	for r := range reqs {
		if r.Memory > 0 {
			debug.SetMemoryLimit(r.Memory / 4 * 3)
		}
		if err := enc.Encode(do(r)); err != nil {
			return 1
		}
	}
	return 0
}
