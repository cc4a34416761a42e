// Package servebench is calq convert bench --server: it measures, in one
// run on the same documents, one batched soffice call, calq convert
// starting its own LibreOffice (cold), calq convert --server on a warm
// calq serve, 1, 2 and 4 HTTP clients sending one document a request,
// and the HTTP overhead of a request: a tiny document through the server
// against the same conversion in-process on the same warm pool. Last it
// measures the cost of a conversion on one route (Options.Route): the
// processor time of calq serve's own process per conversion beside its
// converter's (cost.go); Options.CostOnly measures that alone.
package servebench

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"calq/convert"
	"calq/convert/chromium"
	"calq/convert/convertbench"
	"calq/convert/lo"
	"calq/convert/pdfpool"
	"calq/internal/serve"
	"calq/internal/serve/client"
	"calq/internal/serve/jobs"
	"calq/internal/serve/users"
	"calq/sched/journal"
)

// Options say what to measure.
type Options struct {
	Files     []string // the documents
	Copies    int      // each converted this many times (as copies); 0 means 1
	Soffice   string
	Instances int // the pools' instances; 0: lo.DefaultInstances
	Overhead  int // tiny requests timed for the overhead; 0: 40
	Log       io.Writer
	// Route is the route whose cost is measured (RouteOffice when
	// empty); CostDocs how many conversions it sends (0: 200).
	Route    string
	CostDocs int
	// CostOnly measures the cost alone, none of the ways before it.
	CostOnly bool
	// CPUProfile, when set, receives the CPU profile of calq serve's
	// process while the cost is measured.
	CPUProfile io.Writer
}

// Result is the bench's line: documents per second of each way and the
// ratios, measured in one run.
type Result struct {
	Files     int     `json:"files"`
	Cores     int     `json:"cores"`
	Instances int     `json:"instances"`
	BatchDPS  float64 `json:"batch_dps"` // one soffice call for all
	ColdDPS   float64 `json:"cold_dps"`  // calq convert, starting its pool
	WarmDPS   float64 `json:"warm_dps"`  // calq convert --server
	HTTP1DPS  float64 `json:"http1_dps"` // 1 client, one document a request
	HTTP2DPS  float64 `json:"http2_dps"` // 2 clients
	HTTP4DPS  float64 `json:"http4_dps"` // 4 clients
	WarmVs    float64 `json:"warm_vs_batch"`
	ColdVs    float64 `json:"cold_vs_batch"`
	HTTP4Vs   float64 `json:"http4_vs_batch"`
	TinyHTTP  float64 `json:"tiny_http_ms"`      // median time of a tiny document through the server
	TinyLocal float64 `json:"tiny_inprocess_ms"` // median of the same conversion in-process
	Overhead  float64 `json:"overhead_ms"`       // their difference
	Cost      Cost    `json:"cost"`
}

// Run measures; see the package comment.
func Run(ctx context.Context, o Options) (Result, error) {
	o.Route = cmp.Or(o.Route, RouteOffice)
	if err := CheckRoute(o.Route); err != nil {
		return Result{}, fmt.Errorf("bench: route %w", err)
	}
	env, err := convertbench.Prepare("calq-serve-bench-", o.Files, o.Copies, o.Soffice, o.Log)
	if err != nil {
		return Result{}, err
	}
	defer env.Close()
	soffice, work, files, logf := env.Soffice, env.Work, env.Files, env.Logf
	res := Result{Files: len(files), Cores: runtime.NumCPU(), Instances: max(o.Instances, 0)}
	if res.Instances == 0 {
		res.Instances = lo.DefaultInstances()
	}
	state := filepath.Join(work, "calq-state")
	lopts := lo.Options{Soffice: soffice, Instances: res.Instances, StateDir: state}
	if !o.CostOnly {
		if err := res.local(ctx, env, lopts); err != nil {
			return res, err
		}
	}
	logf("starting calq serve with %d warm instances", res.Instances)
	srv, err := start(ctx, work, lopts, o.Route)
	if err != nil {
		return res, fmt.Errorf("bench: start calq serve: %w", err)
	}
	defer srv.close()
	if !o.CostOnly {
		if err := res.served(ctx, env, srv, o.Overhead); err != nil {
			return res, err
		}
	}
	docs, err := costDocs(o.Route, work, files)
	if err != nil {
		return res, fmt.Errorf("bench: %w", err)
	}
	k := cmp.Or(o.CostDocs, defaultCostDocs)
	logf("cost: %d conversions on /forms/%s from %d clients", k, o.Route, res.Instances)
	if res.Cost, err = cost(ctx, srv.url, o.Route, docs, k, res.Instances, o.CPUProfile); err != nil {
		return res, fmt.Errorf("bench: cost: %w", err)
	}
	return res, nil
}

// local measures the ways without a server: one soffice call, and calq
// convert starting its pool.
func (res *Result) local(ctx context.Context, env *convertbench.Env, lopts lo.Options) error {
	work, files, logf := env.Work, env.Files, env.Logf
	n := float64(len(files))
	logf("one soffice call with all %d files", len(files))
	batch, err := convertbench.Batch(ctx, env.Soffice, files, filepath.Join(work, "batch-state"), filepath.Join(work, "batch"))
	if err != nil {
		return fmt.Errorf("bench: batch: %w", err)
	}
	res.BatchDPS = n / batch.Seconds()
	logf("calq convert, starting %d instances (profiles initialised first)", res.Instances)
	if _, err := convert.Run(ctx, convert.Options{Inputs: files[:min(len(files), res.Instances)], Out: filepath.Join(work, "init"),
		LibreOffice: lopts}); err != nil {
		return fmt.Errorf("bench: initialise profiles: %w", err)
	}
	cold, err := timed(func() error {
		return convertAll(ctx, convert.Options{Inputs: files, Out: filepath.Join(work, "cold"), LibreOffice: lopts}, len(files))
	})
	if err != nil {
		return fmt.Errorf("bench: cold: %w", err)
	}
	res.ColdDPS = n / cold.Seconds()
	return nil
}

// served measures the ways through the warm server srv: calq convert
// --server, 1, 2 and 4 HTTP clients, and the overhead of a request.
func (res *Result) served(ctx context.Context, env *convertbench.Env, srv *server, overhead int) error {
	work, files, logf := env.Work, env.Files, env.Logf
	n := float64(len(files))
	cl, err := client.New(srv.url, "")
	if err != nil {
		return err
	}
	logf("calq convert --server, %d files", len(files))
	warm, err := timed(func() error {
		return convertAll(ctx, convert.Options{Inputs: files, Out: filepath.Join(work, "warm"), Office: cl, OfficeSlots: 2 * res.Instances /* as calq convert --server */}, len(files))
	})
	if err != nil {
		return fmt.Errorf("bench: warm: %w", err)
	}
	res.WarmDPS = n / warm.Seconds()
	for _, c := range []struct {
		clients int
		dps     *float64
	}{{1, &res.HTTP1DPS}, {2, &res.HTTP2DPS}, {4, &res.HTTP4DPS}} {
		logf("%d HTTP clients, one document a request", c.clients)
		d, err := timed(func() error { return clients(ctx, srv.url, RouteOffice, files, c.clients) })
		if err != nil {
			return fmt.Errorf("bench: %d clients: %w", c.clients, err)
		}
		*c.dps = n / d.Seconds()
	}

	logf("overhead: a tiny document through the server and in-process")
	tiny := filepath.Join(work, "tiny.txt")
	os.WriteFile(tiny, []byte("calq\n"), 0o600)
	k := max(overhead, 40)
	var viaHTTP, local []time.Duration
	for i := range k {
		d, err := timed(func() error { return post(ctx, srv.url, RouteOffice, tiny) })
		if err != nil {
			return fmt.Errorf("bench: tiny over HTTP: %w", err)
		}
		viaHTTP = append(viaHTTP, d)
		d, err = timed(func() error {
			return convertAll(ctx, convert.Options{Inputs: []string{tiny}, Out: filepath.Join(work, "tiny", fmt.Sprint(i)), Pool: srv.pool}, 1)
		})
		if err != nil {
			return fmt.Errorf("bench: tiny in-process: %w", err)
		}
		local = append(local, d)
	}
	res.TinyHTTP, res.TinyLocal = ms(median(viaHTTP)), ms(median(local))
	res.Overhead = res.TinyHTTP - res.TinyLocal
	res.WarmVs, res.ColdVs, res.HTTP4Vs = res.WarmDPS/res.BatchDPS, res.ColdDPS/res.BatchDPS, res.HTTP4DPS/res.BatchDPS
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func timed(f func() error) (time.Duration, error) {
	begin := time.Now()
	err := f()
	return time.Since(begin), err
}

// convertAll runs calq convert and checks that every file was converted.
func convertAll(ctx context.Context, o convert.Options, want int) error {
	sum, err := convert.Run(ctx, o)
	if err == nil && sum.Converted != want {
		err = fmt.Errorf("%d of %d converted", sum.Converted, want)
	}
	return err
}

// server is an in-process calq serve on a loopback port.
type server struct {
	url   string
	pool  *lo.Pool
	s     *serve.Server
	http  *http.Server
	j     *journal.Journal
	close func()
}

// start starts calq serve with a warm pool of LibreOffice and, when
// route is Chromium's, a pool of Chromium, each warmed before the clock
// starts.
func start(ctx context.Context, work string, lopts lo.Options, route string) (*server, error) {
	pool, err := lo.New(ctx, lopts)
	if err != nil {
		return nil, err
	}
	var browsers *chromium.Pool
	if strings.HasPrefix(route, "chromium/") {
		if browsers, err = chromium.New(chromium.Config{}); err != nil {
			pool.Close()
			return nil, err
		}
	}
	j, err := journal.Open(ctx, filepath.Join(work, "serve.db"), journal.Options{})
	if err != nil {
		pool.Close()
		return nil, err
	}
	js, err := jobs.Open(ctx, j)
	if err != nil {
		pool.Close()
		j.Close()
		return nil, err
	}
	us, err := users.Open(ctx, j)
	if err != nil {
		pool.Close()
		j.Close()
		return nil, err
	}
	// As calq serve runs: conversions recorded in the journal, users, a
	// JSON log (here discarded, its cost counted) and pdfcpu's helpers.
	pdfs := pdfpool.New(pdfpool.Options{})
	s, err := serve.New(serve.Options{Data: filepath.Join(work, "serve-data"), Jobs: js, Pool: pool, Chromium: browsers,
		PDF: pdfs, Users: us, Journal: j, History: j, Log: slog.New(slog.NewJSONHandler(io.Discard, nil)), MaxQueued: 100000})
	if err == nil {
		err = s.Start(ctx)
	}
	ln, lerr := net.Listen("tcp", "127.0.0.1:0")
	if err = errors.Join(err, lerr); err != nil {
		pool.Close()
		pdfs.Close()
		j.Close()
		return nil, err
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	srv := &server{url: "http://" + ln.Addr().String(), pool: pool, s: s, http: hs, j: j}
	srv.close = func() {
		hs.Close()
		s.Stop(0)
		pool.Close()
		pdfs.Close()
		if browsers != nil {
			browsers.Close()
		}
		j.Close()
	}
	warm := map[string]string{RouteOffice: writeFile(work, "warm.txt", "warm\n")}
	if browsers != nil {
		warm[route] = writeFile(work, "index.html", onePage)
	}
	for r, doc := range warm {
		// Warm every instance before the clock starts.
		for range lopts.Instances {
			if err := post(ctx, srv.url, r, doc); err != nil {
				srv.close()
				return nil, err
			}
		}
	}
	return srv, nil
}

func writeFile(work, name, text string) string {
	p := filepath.Join(work, name)
	os.WriteFile(p, []byte(text), 0o600)
	return p
}

// clients sends every file on route, one a request, from k clients at
// once.
func clients(ctx context.Context, url, route string, files []string, k int) error {
	next := make(chan string)
	errs := make(chan error, k)
	var wg sync.WaitGroup
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range next {
				if err := post(ctx, url, route, f); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for _, f := range files {
		next <- f
	}
	close(next)
	wg.Wait()
	close(errs)
	return <-errs
}

// post converts one file on one of Gotenberg's routes and checks the
// reply.
func post(ctx context.Context, url, route, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("files", filepath.Base(path))
	w.Write(b)
	mw.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/forms/"+route, &body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || !bytes.HasPrefix(out, []byte("%PDF-")) {
		return fmt.Errorf("%s: %d %.200s", filepath.Base(path), resp.StatusCode, out)
	}
	return nil
}
