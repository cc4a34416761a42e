package webbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"calq/internal/proc"
)

// gotenbergStart bounds Gotenberg's start, until /health answers.
const gotenbergStart = 60 * time.Second

// gotenberg is a Gotenberg server started from its binary, with its
// Chromium module on the chromium calq uses and its other modules
// pointed at programs that exist (it checks their paths at start) with
// the LibreOffice routes off: none of them is used.
type gotenberg struct {
	URL  string
	cmd  *exec.Cmd
	stop context.CancelFunc
}

// gotenbergEnv is Gotenberg's environment: the programs of its modules,
// chromium standing for those the bench never calls.
func gotenbergEnv(chromium, hyphen string) []string {
	env := []string{"CHROMIUM_BIN_PATH=" + chromium, "CHROMIUM_HYPHEN_DATA_DIR_PATH=" + hyphen,
		// No OpenTelemetry exporter: without a collector each would retry.
		"OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none"}
	for _, v := range []string{"LIBREOFFICE_BIN_PATH", "UNOCONVERTER_BIN_PATH", "PDFTK_BIN_PATH",
		"QPDF_BIN_PATH", "EXIFTOOL_BIN_PATH", "PDFCPU_BIN_PATH"} {
		env = append(env, v+"="+chromium)
	}
	return append(os.Environ(), env...)
}

// startGotenberg starts binary on a free loopback port with chromium,
// its files under work, its output to log, and waits until it answers.
func startGotenberg(ctx context.Context, binary, chromium, work string, log io.Writer) (*gotenberg, error) {
	hyphen := filepath.Join(work, "gotenberg-hyphen")
	if err := os.MkdirAll(hyphen, 0o700); err != nil {
		return nil, fmt.Errorf("gotenberg: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("gotenberg: %w", err)
	}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	cmd := proc.Command(runCtx, proc.Options{Grace: 10 * time.Second, Dir: work, Env: gotenbergEnv(chromium, hyphen)},
		binary, "--api-port="+strconv.Itoa(port), "--api-bind-ip=127.0.0.1", "--libreoffice-disable-routes", "--log-level=error",
		"--api-timeout="+requestTimeout.String())
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		stop()
		return nil, fmt.Errorf("gotenberg: %w", err)
	}
	g := &gotenberg{URL: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd, stop: stop}
	if err := g.wait(ctx); err != nil {
		g.close()
		return nil, err
	}
	return g, nil
}

// wait polls /health until Gotenberg answers 200, it exits or
// gotenbergStart passes.
func (g *gotenberg) wait(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, gotenbergStart)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, g.URL+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("gotenberg: no answer on %s/health: %w", g.URL, ctx.Err())
		case <-tick.C:
		}
	}
}

// browserMemory is the memory of Gotenberg's browsers, counted as calq's
// pool counts its own (chromium.Stats.RSS: the proportional set size, so
// that pages the processes share count once): its process group but for
// calq's guard (the group's leader) and Gotenberg's own process.
func (g *gotenberg) browserMemory() int64 {
	pgid := g.cmd.Process.Pid
	var kib int64
	for _, pid := range groupPids(pgid) {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if pid != pgid && strings.TrimSpace(string(comm)) != "gotenberg" {
			kib += pssKiB(pid)
		}
	}
	return kib << 10
}

func (g *gotenberg) close() error {
	g.stop()
	err := g.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil // stopped by the signal
	}
	return err
}

// freePort returns a loopback port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
