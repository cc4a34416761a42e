package lo

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"calq/internal/proc"
)

// How documents reach an instance: a UNO helper when a Python with
// LibreOffice's UNO bridge is at hand (Debian's python3-uno), else a
// short-lived soffice client per document.
//
// The helper (unohelper.py, embedded) is one python3 process per life of
// an instance, connected to it over a UNO pipe (soffice --accept=pipe),
// as unoserver does. calq writes one JSON request per document on its
// stdin and reads one JSON answer on its stdout; the document is loaded,
// exported with the PDF filter of the module it opened in, and closed.
// That costs a few milliseconds of calq's and Python's time per document,
// against about 0.1 s for a client soffice (measured by calq convert
// bench).

//go:embed unohelper.py
var unoHelperSource []byte

// findPython returns the python3 to run helpers with: Debian's, which
// python3-uno extends (a python3 first in PATH, from pyenv or a venv,
// usually lacks the uno module), else the one in PATH; "" when there is
// none. Whether it has the uno module shows when the first helper starts
// (errNoUNO): probing it first would delay every start.
func findPython() string {
	for _, name := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// errNoUNO says the python3 found has no uno module: the pool hands
// documents over by client soffice instead.
var errNoUNO = errors.New("python3 has no uno module (apt-get install python3-uno)")

// pythonEnv is the helper's environment: the instance's allow-list, no
// PYTHON* variable that could load other code, UTF-8 I/O.
func pythonEnv() []string {
	return append(instanceEnv(os.Environ(), os.TempDir(), os.TempDir()), "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1")
}

// unoPipePath is where LibreOffice makes the UNO pipe named name (see
// pipe.go).
func unoPipePath(name string) string {
	return fmt.Sprintf("/tmp/OSL_PIPE_%d_%s", os.Getuid(), name)
}

// acceptArg is the soffice option that opens the UNO pipe.
func acceptArg(pipe string) string {
	return "--accept=pipe,name=" + pipe + ";urp;StarOffice.ComponentContext"
}

// helper is one running unohelper.py.
type helper struct {
	cmd     *exec.Cmd
	cancel  context.CancelFunc
	stdin   io.WriteCloser
	replies chan helperReply // closed when its stdout ends
	quit    chan struct{}    // closed by stop: no one reads replies any more
	gone    chan struct{}    // closed when its stdout ends
	stderr  *tailLog
}

// helperReply is a line the helper prints.
type helperReply struct {
	Ready bool   `json:"ready"`
	OK    bool   `json:"ok"`
	Stage string `json:"stage"` // load, password, export, connection, request
	Error string `json:"error"`
}

// helperRequest is a line calq writes to the helper.
type helperRequest struct {
	In       string `json:"in"`
	Out      string `json:"out"`
	InFilter string `json:"infilter,omitempty"`
	PDFA     int    `json:"pdfa,omitempty"`
	Lossless bool   `json:"lossless,omitempty"`
	// Export's: FilterData entries (replacing those pdfa and lossless
	// set), page styles turned landscape, the source's password.
	Filter        []filterProp `json:"filter,omitempty"`
	Landscape     bool         `json:"landscape,omitempty"`
	Password      string       `json:"password,omitempty"`
	UpdateIndexes bool         `json:"updateIndexes,omitempty"`
}

// errSofficeExited says the instance exited before its helper connected.
var errSofficeExited = errors.New("soffice exited while starting")

// startHelper starts the helper for the instance of layout l that listens
// (or soon will) on pipe, and waits until it is connected, r dies, ctx is
// done or closing is closed.
//
// The helper runs without a guard (proc.Child): it ends when its input
// does, or when the instance it talks to dies, and both happen when calq
// dies; it also gets SIGKILL then. That saves a re-execution of calq per
// start.
func startHelper(ctx context.Context, python string, l layout, pipe string, r *run, closing <-chan struct{}) (*helper, error) {
	script := filepath.Join(l.dir, "unohelper.py")
	if err := os.WriteFile(script, unoHelperSource, 0o600); err != nil {
		return nil, err
	}
	hctx, cancel := context.WithCancel(context.Background())
	h := &helper{cancel: cancel, replies: make(chan helperReply, 1), quit: make(chan struct{}), gone: make(chan struct{}),
		stderr: newTailLog(4 << 10)}
	wait := time.Until(deadlineOr(ctx, time.Now().Add(defaultStartTimeout)))
	h.cmd = proc.Child(hctx, proc.Options{Dir: l.dir, Env: pythonEnv(), Grace: time.Second},
		python, "-I", script, "uno:pipe,name="+pipe+";urp;StarOffice.ComponentContext",
		strconv.FormatFloat(wait.Seconds(), 'f', 1, 64))
	h.cmd.Stderr = h.stderr
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		cancel()
		return nil, err
	}
	if err := h.cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start the UNO helper: %w", err)
	}
	go h.read(stdout)
	select {
	case rep, ok := <-h.replies:
		if ok && rep.Ready {
			return h, nil
		}
		h.stop()
		said := lastLines(h.stderr.String(), 3)
		if strings.Contains(said, "No module named 'uno'") {
			return nil, fmt.Errorf("%s: %w", python, errNoUNO)
		}
		return nil, fmt.Errorf("the UNO helper could not connect: %s", strings.Join(nonEmpty(rep.Error, said), "; "))
	case <-r.done:
		h.stop()
		return nil, errSofficeExited
	case <-ctx.Done():
		h.stop()
		return nil, ctx.Err()
	case <-closing:
		h.stop()
		return nil, ErrClosed
	}
}

func deadlineOr(ctx context.Context, def time.Time) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return def
}

// read passes the helper's answers on, one per line, and closes replies
// at the end of its output (it exited, or was killed).
func (h *helper) read(stdout io.Reader) {
	defer close(h.gone)
	defer close(h.replies)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		var rep helperReply
		if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
			rep = helperReply{Stage: "request", Error: "unreadable answer from the UNO helper: " + err.Error()}
		}
		select {
		case h.replies <- rep:
		case <-h.quit:
			return
		}
	}
}

// exited says whether the helper's output has ended: it exited or was
// killed, and the instance needs restarting with a new one.
func (h *helper) exited() bool {
	select {
	case <-h.gone:
		return true
	default:
		return false
	}
}

// send writes one request.
func (h *helper) send(req helperRequest) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	_, err = h.stdin.Write(append(b, '\n'))
	return err
}

// stop kills the helper and waits for it.
func (h *helper) stop() {
	close(h.quit)
	h.cancel()
	h.stdin.Close()
	h.cmd.Wait()
}

// nonEmpty returns the non-empty ones of ss.
func nonEmpty(ss ...string) []string {
	return slices.DeleteFunc(ss, func(s string) bool { return s == "" })
}
