// Package smtptest starts a real SMTP server (aiosmtpd, from Debian's
// python3-aiosmtpd) on loopback for tests, and reads what it received.
// Start skips a test when aiosmtpd is missing, unless CALQ_REQUIRE_TOOLS=1.
package smtptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// python is Debian's interpreter, which has python3-aiosmtpd; the
// python3 first on PATH may be another one.
const python = "/usr/bin/python3"

// smtpdScript is a real SMTP server on loopback: aiosmtpd, saving each
// message it accepts as DIR/NNN.eml (the bytes of DATA) and NNN.json (the
// envelope). It prints its port once it accepts connections and stops
// when its stdin closes. With LOGIN:PASSWORD, it offers AUTH (PLAIN and
// LOGIN, without TLS) and accepts only those credentials.
const smtpdScript = `
import json, os, socket, sys
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

out, creds = sys.argv[1], sys.argv[2]

class Handler:
    n = 0
    async def handle_DATA(self, server, session, envelope):
        self.n += 1
        base = os.path.join(out, "%03d" % self.n)
        with open(base + ".json", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                       "authenticated": bool(session.authenticated)}, f)
        with open(base + ".tmp", "wb") as f:
            f.write(envelope.original_content)
        os.rename(base + ".tmp", base + ".eml")
        return "250 OK saved"

def authenticator(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and creds == data.login.decode() + ":" + data.password.decode()
    return AuthResult(success=ok, handled=False)  # handled=False: aiosmtpd replies 535

kwargs = dict(authenticator=authenticator, auth_require_tls=False) if creds else {}
for attempt in range(20):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port, **kwargs)
    try:
        controller.start()  # returns once the server answers
        break
    except Exception as e:  # the port was taken meanwhile
        err = e
else:
    raise err
print(port, flush=True)
sys.stdin.read()
controller.stop()
`

// Server is a running smtpdScript.
type Server struct {
	Port int
	dir  string
}

// Start starts smtpdScript for t, stopped at cleanup; creds is ""
// or "login:password". It skips t when aiosmtpd is missing, unless
// CALQ_REQUIRE_TOOLS=1.
func Start(t testing.TB, creds string) *Server {
	t.Helper()
	if out, err := exec.Command(python, "-c", "import aiosmtpd").CombinedOutput(); err != nil {
		msg := fmt.Sprintf("%s cannot import aiosmtpd (apt-get install python3-aiosmtpd): %v %s", python, err, out)
		if os.Getenv("CALQ_REQUIRE_TOOLS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg) // a failure under CALQ_REQUIRE_TOOLS=1, above
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "smtpd.py")
	must(t, os.WriteFile(script, []byte(smtpdScript), 0o600))
	s := &Server{dir: filepath.Join(dir, "msgs")}
	must(t, os.Mkdir(s.dir, 0o700))
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	must(t, err)
	defer stderr.Close()

	cmd := exec.Command(python, script, s.dir, creds)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(stderr.Name())
			t.Logf("smtpd stderr:\n%s", b)
		}
	})
	// A safety net, not a measure: a server that never starts must not
	// hang the test.
	guard := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	guard.Stop()
	if s.Port, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		b, _ := os.ReadFile(stderr.Name())
		t.Fatalf("smtpd did not start: %v\n%s", err, b)
	}
	return s
}

// Envelope is what NNN.json holds: the SMTP envelope of a message.
type Envelope struct {
	MailFrom      string   `json:"mail_from"`
	RcptTos       []string `json:"rcpt_tos"`
	Authenticated bool     `json:"authenticated"`
}

// Received returns the messages the server saved, in order.
func (s *Server) Received(t testing.TB) (raws [][]byte, envs []Envelope) {
	t.Helper()
	emls, err := filepath.Glob(filepath.Join(s.dir, "*.eml"))
	must(t, err)
	for _, eml := range emls {
		raw, err := os.ReadFile(eml)
		must(t, err)
		js, err := os.ReadFile(strings.TrimSuffix(eml, ".eml") + ".json")
		must(t, err)
		var env Envelope
		must(t, json.Unmarshal(js, &env))
		raws, envs = append(raws, raw), append(envs, env)
	}
	return raws, envs
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
