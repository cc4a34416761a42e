package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands that serve web pages on loopback, for the scripts of
// calq convert --url.
var webScriptCmds = map[string]func(*testscript.TestScript, bool, []string){
	"webserve": cmdWebServe,
	"webhits":  cmdWebHits,
}

// webHits counts the requests of each script's server, by its URL;
// scripts run in parallel.
var (
	webMu   sync.Mutex
	webHits = map[string]*atomic.Int64{}
)

// cmdWebServe implements "webserve DIR": it serves the files of DIR on
// 127.0.0.1 until the script ends, and sets $WEB to its URL and
// $WEBPORT to its port.
func cmdWebServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: webserve DIR")
	}
	hits := &atomic.Int64{}
	files := http.FileServer(http.Dir(ts.MkAbs(args[0])))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		files.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	ts.Check(err)
	ts.Setenv("WEB", srv.URL)
	ts.Setenv("WEBPORT", port)
	webMu.Lock()
	webHits[srv.URL] = hits
	webMu.Unlock()
}

// cmdWebHits implements "webhits N": the server of $WEB has answered N
// requests so far.
func cmdWebHits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: webhits N")
	}
	want, err := strconv.ParseInt(args[0], 10, 64)
	ts.Check(err)
	webMu.Lock()
	hits := webHits[ts.Getenv("WEB")]
	webMu.Unlock()
	if hits == nil {
		ts.Fatalf("webhits: no webserve in this script")
	}
	if got := hits.Load(); got != want {
		ts.Fatalf("the web server answered %d requests, want %d", got, want)
	}
}
