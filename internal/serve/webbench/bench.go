package webbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"

	"calq/convert/chromium"
)

// Options say what to measure.
type Options struct {
	Chromium  string // the chromium program ("": chromium.Find's)
	Gotenberg string // Gotenberg's binary; "": Gotenberg is not measured
	Documents int    // HTML documents generated (0: 20)
	Copies    int    // each sent this many times by a throughput run (0: 2)
	// NaiveFiles is how many documents the naive baseline converts (0:
	// 6): each costs a browser start, about a second.
	NaiveFiles int
	Latency    int // warm conversions timed for each median (0: 20)
	// Memory is the conversions of calq's memory run (0: 1000); the
	// browsers' memory is read after a tenth, half and all of them.
	Memory   int
	Browsers int // calq's pool (0: its defaults)
	Tabs     int
	Log      io.Writer // progress lines; nil: none
}

// Check fills in the defaults of o and checks its values; Run calls it.
func (o *Options) Check() error {
	o.Documents = cmp.Or(o.Documents, 20)
	o.Copies = cmp.Or(o.Copies, 2)
	o.NaiveFiles = cmp.Or(o.NaiveFiles, 6)
	o.Latency = cmp.Or(o.Latency, 20)
	o.Memory = cmp.Or(o.Memory, 1000)
	switch {
	case o.Documents < 1 || o.Documents > 1000:
		return fmt.Errorf("bench: %d documents, want 1 to 1000", o.Documents)
	case o.Copies < 1 || o.Copies > 100:
		return fmt.Errorf("bench: %d copies, want 1 to 100", o.Copies)
	case o.NaiveFiles < 1 || o.NaiveFiles > o.Documents:
		return fmt.Errorf("bench: %d naive files, want 1 to the %d documents", o.NaiveFiles, o.Documents)
	case o.Latency < 1 || o.Latency > 1000:
		return fmt.Errorf("bench: %d timed conversions, want 1 to 1000", o.Latency)
	case o.Memory < 20 || o.Memory > 100_000:
		return fmt.Errorf("bench: a memory run of %d conversions, want 20 to 100000", o.Memory)
	case o.Browsers < 0 || o.Tabs < 0:
		return fmt.Errorf("bench: %d browsers of %d tabs, want positive numbers", o.Browsers, o.Tabs)
	}
	return nil
}

// Server is one server's figures: calq serve's or Gotenberg's.
type Server struct {
	// FirstPDFSeconds is the first conversion, the browser's start
	// included.
	FirstPDFSeconds float64 `json:"first_pdf_seconds"`
	DPS1            float64 `json:"dps_1"` // documents/s, 1 client
	DPS4            float64 `json:"dps_4"` // 4 clients
	// HTMLMillis and MarkdownMillis are the medians of a warm one-page
	// conversion, one at a time.
	HTMLMillis     float64 `json:"html_ms"`
	MarkdownMillis float64 `json:"markdown_ms"`
	// Memory is the browsers' memory after so many conversions (the sum
	// of their proportional set sizes, as chromium.Stats.RSS counts).
	Memory []RSS `json:"memory"`
}

// RSS is the browsers' memory after Conversions.
type RSS struct {
	Conversions int   `json:"conversions"`
	Bytes       int64 `json:"bytes"`
}

// Result is the bench's figures and ratios, measured in one run.
type Result struct {
	Documents  int `json:"documents"` // HTML documents, each sent Copies times by a throughput run
	Copies     int `json:"copies"`
	Pages      int `json:"pages"` // of the documents, once each
	Cores      int `json:"cores"`
	NaiveFiles int `json:"naive_files"`
	// NaiveDPS is one chromium --print-to-pdf per file.
	NaiveDPS  float64 `json:"naive_dps"`
	Calq      Server  `json:"calq"`
	Gotenberg *Server `json:"gotenberg"` // null without Options.Gotenberg
	// CalqCPUMillis is calq serve's own CPU per conversion over the
	// memory run; null when the clients ran in calq's process.
	CalqCPUMillis *float64 `json:"calq_cpu_ms"`
	// VsGotenberg and VsNaive are calq's documents/s at 4 clients over
	// Gotenberg's at 4 clients and over the naive baseline's.
	VsGotenberg *float64 `json:"calq_vs_gotenberg"`
	VsNaive     float64  `json:"calq_vs_naive"`
}

// Run measures; see the package comment.
func Run(ctx context.Context, o Options) (Result, error) {
	if err := o.Check(); err != nil {
		return Result{}, err
	}
	binary, _, err := chromium.Find(o.Chromium)
	if err != nil {
		return Result{}, fmt.Errorf("bench: %w", err)
	}
	work, err := os.MkdirTemp("", "calq-web-bench-")
	if err != nil {
		return Result{}, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(work)
	docs, err := Generate(work, o.Documents)
	if err != nil {
		return Result{}, fmt.Errorf("bench: %w", err)
	}
	ld, err := newLoader(o.Log)
	if err != nil {
		return Result{}, fmt.Errorf("bench: %w", err)
	}
	defer ld.close()
	b := &bench{o: o, docs: docs, work: work, binary: binary, ld: ld}
	return b.run(ctx)
}

// bench is one run's state.
type bench struct {
	o      Options
	docs   Docs
	work   string
	binary string
	ld     *loader
}

func (b *bench) logf(format string, args ...any) {
	if b.o.Log != nil {
		fmt.Fprintf(b.o.Log, "calq: bench: "+format+"\n", args...)
	}
}

func (b *bench) run(ctx context.Context) (Result, error) {
	res := Result{Documents: len(b.docs.HTML), Copies: b.o.Copies, Cores: runtime.NumCPU(), NaiveFiles: b.o.NaiveFiles}
	for _, d := range b.docs.HTML {
		res.Pages += d.Pages
	}
	b.logf("one chromium --print-to-pdf per file, on %d documents", b.o.NaiveFiles)
	naive, err := Naive(ctx, b.binary, b.work, b.docs.HTML[:b.o.NaiveFiles])
	if err != nil {
		return res, fmt.Errorf("bench: %w", err)
	}
	res.NaiveDPS = float64(b.o.NaiveFiles) / naive.Seconds()
	if b.o.Gotenberg != "" {
		g, err := b.gotenberg(ctx)
		if err != nil {
			return res, fmt.Errorf("bench: gotenberg: %w", err)
		}
		res.Gotenberg = &g
	}
	cpu, err := b.calq(ctx, &res.Calq)
	if err != nil {
		return res, fmt.Errorf("bench: calq serve: %w", err)
	}
	if b.ld.Separate {
		res.CalqCPUMillis = &cpu
	}
	res.VsNaive = res.Calq.DPS4 / res.NaiveDPS
	if res.Gotenberg != nil {
		vs := res.Calq.DPS4 / res.Gotenberg.DPS4
		res.VsGotenberg = &vs
	}
	return res, nil
}

// gotenberg measures Gotenberg: the same as calq but the memory run,
// its browsers' memory read once at the end.
func (b *bench) gotenberg(ctx context.Context) (Server, error) {
	b.logf("starting Gotenberg (%s)", b.o.Gotenberg)
	log, err := os.Create(b.work + "/gotenberg.log")
	if err != nil {
		return Server{}, err
	}
	defer log.Close()
	g, err := startGotenberg(ctx, b.o.Gotenberg, b.binary, b.work, log)
	if err != nil {
		return Server{}, err
	}
	defer g.close()
	var s Server
	if err := b.first(ctx, g.URL, &s); err != nil {
		return s, errors.Join(err, tail(log.Name()))
	}
	n, err := b.measure(ctx, g.URL, &s)
	if err != nil {
		return s, errors.Join(err, tail(log.Name()))
	}
	s.Memory = []RSS{{Conversions: 1 + n, Bytes: g.browserMemory()}}
	return s, nil
}

// calq measures calq serve, and returns its CPU per conversion over the
// memory run, in milliseconds.
func (b *bench) calq(ctx context.Context, s *Server) (float64, error) {
	b.logf("starting calq serve with a Chromium pool")
	srv, err := startCalq(ctx, chromium.Config{Binary: b.binary, Browsers: b.o.Browsers, Tabs: b.o.Tabs,
		Timeout: requestTimeout}, b.work)
	if err != nil {
		return 0, err
	}
	defer srv.close()
	if err := b.first(ctx, srv.URL, s); err != nil {
		return 0, err
	}
	b.logf("memory: %d conversions at 4 clients", b.o.Memory)
	cpu0, done := selfCPU(), 1
	for _, at := range []int{b.o.Memory / 10, b.o.Memory / 2, b.o.Memory} {
		if _, err := b.load(ctx, srv.URL, htmlRoute, b.paths(b.docs.HTML), 4, at-done); err != nil {
			return 0, fmt.Errorf("memory run: %w", err)
		}
		done = at
		s.Memory = append(s.Memory, RSS{Conversions: done, Bytes: srv.Pool.Stats().RSS})
	}
	cpu := float64((selfCPU() - cpu0).Microseconds()) / 1000 / float64(done-1)
	_, err = b.measure(ctx, srv.URL, s)
	return cpu, err
}

const (
	htmlRoute     = "/forms/chromium/convert/html"
	markdownRoute = "/forms/chromium/convert/markdown"
)

// first takes a server's first PDF, its browser's start included.
func (b *bench) first(ctx context.Context, url string, s *Server) error {
	out, err := b.load(ctx, url, htmlRoute, b.paths([]Doc{b.docs.OnePage}), 1, 1)
	if err != nil {
		return fmt.Errorf("first PDF: %w", err)
	}
	s.FirstPDFSeconds = out.Seconds
	return nil
}

// measure takes a warm server's throughput and latencies, and returns
// the conversions it asked for.
func (b *bench) measure(ctx context.Context, url string, s *Server) (int, error) {
	n := 0
	if _, err := b.load(ctx, url, htmlRoute, b.paths(b.docs.HTML), 4, 8); err != nil { // every tab warm
		return n, fmt.Errorf("warming up: %w", err)
	}
	n = 8
	all := len(b.docs.HTML) * b.o.Copies
	for _, c := range []struct {
		clients int
		dps     *float64
	}{{1, &s.DPS1}, {4, &s.DPS4}} {
		b.logf("%s: %d documents, %d clients", url, all, c.clients)
		out, err := b.load(ctx, url, htmlRoute, b.paths(b.docs.HTML), c.clients, all)
		if err != nil {
			return n, fmt.Errorf("%d clients: %w", c.clients, err)
		}
		n += all
		*c.dps = float64(all) / out.Seconds
	}
	for _, c := range []struct {
		route string
		doc   Doc
		ms    *float64
	}{{htmlRoute, b.docs.OnePage, &s.HTMLMillis}, {markdownRoute, b.docs.Markdown, &s.MarkdownMillis}} {
		b.logf("%s: a warm one-page document, %d times", url+c.route, b.o.Latency)
		out, err := b.load(ctx, url, c.route, b.paths([]Doc{c.doc}), 1, b.o.Latency)
		if err != nil {
			return n, fmt.Errorf("%s: %w", c.route, err)
		}
		n += b.o.Latency
		*c.ms = median(out.Millis)
	}
	return n, nil
}

func (b *bench) load(ctx context.Context, url, route string, docs [][]string, clients, count int) (Outcome, error) {
	return b.ld.run(ctx, Load{URL: url + route, Docs: docs, Clients: clients, Count: count})
}

func (b *bench) paths(docs []Doc) [][]string {
	ps := make([][]string, len(docs))
	for i, d := range docs {
		ps[i] = d.Paths()
	}
	return ps
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// tail is the end of a server's log, for an error.
func tail(path string) error {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return nil
	}
	return fmt.Errorf("its log ends: %s", b[max(0, len(b)-2000):])
}
