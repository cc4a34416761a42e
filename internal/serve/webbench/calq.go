package webbench

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"calq/convert/chromium"
	"calq/internal/serve"
	"calq/internal/serve/jobs"
	"calq/sched/journal"
)

// calqServer is an in-process calq serve with a Chromium pool and no
// LibreOffice, on a loopback port.
type calqServer struct {
	URL   string
	Pool  *chromium.Pool
	close func()
}

// startCalq starts calq serve on cfg's pool, its data under work. No
// browser starts before the first conversion.
func startCalq(ctx context.Context, cfg chromium.Config, work string) (*calqServer, error) {
	pool, err := chromium.New(cfg)
	if err != nil {
		return nil, err
	}
	j, err := journal.Open(ctx, filepath.Join(work, "calq-serve.db"), journal.Options{})
	if err != nil {
		pool.Close()
		return nil, err
	}
	undo := func() { pool.Close(); j.Close() }
	js, err := jobs.Open(ctx, j)
	if err != nil {
		undo()
		return nil, err
	}
	s, err := serve.New(serve.Options{Data: filepath.Join(work, "calq-serve-data"), Jobs: js, Chromium: pool, MaxQueued: 100000,
		RequestTimeout: requestTimeout})
	if err == nil {
		err = s.Start(ctx)
	}
	var ln net.Listener
	if err == nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		undo()
		return nil, err
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return &calqServer{URL: "http://" + ln.Addr().String(), Pool: pool, close: func() {
		hs.Close()
		s.Stop(0)
		undo()
	}}, nil
}
