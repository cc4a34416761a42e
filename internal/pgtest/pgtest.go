// Package pgtest starts a real PostgreSQL server for a test: initdb in a
// temporary directory, the server on a free loopback port and a Unix
// socket in that directory, trust authentication for the role calq, fsync
// off. As root it runs the server as the postgres user, since PostgreSQL
// refuses to run as root. Without initdb the test is skipped, or fails
// under CALQ_REQUIRE_TOOLS=1 (see tooltest).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"calq/internal/tooltest"
)

// Server is a PostgreSQL server of one test. Stop and Start let a test take
// it away and bring it back on the same port with the same data.
type Server struct {
	t    testing.TB
	bin  string // the directory of initdb and postgres
	dir  string // data directory and socket directory
	port int
	cred *syscall.Credential // nil unless root
	cmd  *exec.Cmd
	exit chan struct{}
	o    Options

	// URL is the server's address for pgx and for calq's --db.
	URL string
}

// binDir finds PostgreSQL's server programs: on PATH, else where Debian's
// packages put them (/usr/lib/postgresql/N/bin, which is not on PATH).
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		return "", errors.New("initdb is neither on PATH nor in /usr/lib/postgresql/*/bin")
	}
	slices.SortFunc(found, func(a, b string) int { return version(b) - version(a) })
	return filepath.Dir(found[0]), nil
}

func version(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// Options are what a test may ask of its server beyond loopback.
type Options struct {
	// Listen is another address the server listens on (as well as
	// 127.0.0.1), e.g. the host's end of a veth pair; it must exist
	// before the server starts.
	Listen string
	// Trust is a network (CIDR) whose clients are trusted, as loopback is.
	Trust string
}

// Start creates and starts a server that the test's cleanup stops and
// removes.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith is Start with o.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		tooltest.Unavailable(t, "PostgreSQL server: %v (apt-get install postgresql)", err)
	}
	dir, err := os.MkdirTemp("", "calq-pg-")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, bin: bin, dir: dir, o: o}
	t.Cleanup(func() {
		s.Stop()
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			tooltest.Unavailable(t, "running PostgreSQL as root needs the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	initdb := s.command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "calq",
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	if o.Trust != "" {
		hba, err := os.OpenFile(filepath.Join(dir, "data", "pg_hba.conf"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fmt.Fprintf(hba, "host all all %s trust\n", o.Trust)
		if cerr := hba.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	s.port = freePort(t)
	s.URL = fmt.Sprintf("postgres://calq@127.0.0.1:%d/postgres?sslmode=disable", s.port)
	s.Start()
	return s
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// Start starts the server again after Stop, and waits until it takes
// connections.
func (s *Server) Start() {
	s.t.Helper()
	if s.cmd != nil {
		s.t.Fatal("pgtest: server already running")
	}
	log, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		s.t.Fatal(err)
	}
	defer log.Close()
	cmd := s.command(filepath.Join(s.bin, "postgres"), "-D", filepath.Join(s.dir, "data"),
		"-p", strconv.Itoa(s.port), "-c", "listen_addresses="+strings.Join(slices.DeleteFunc([]string{"127.0.0.1", s.o.Listen}, func(a string) bool { return a == "" }), ","), "-c", "unix_socket_directories="+s.dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=64MB")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start postgres: %v", err)
	}
	s.cmd, s.exit = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(s.exit) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.URL)
		cancel()
		if err == nil {
			c.Close(context.Background())
			return
		}
		select {
		case <-s.exit:
			s.cmd = nil
			s.t.Fatalf("postgres exited at start:\n%s", s.Log())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("postgres did not take connections in 60s: %v\n%s", err, s.Log())
		}
	}
}

// Stop shuts the server down (fast shutdown: clients are disconnected)
// and waits for it to exit. It does nothing when the server is stopped.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exit:
	case <-time.After(30 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exit
	}
	s.cmd = nil
}

// Log returns what the server wrote to its log.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	return strings.TrimSpace(string(b))
}

// URLOn is the server's URL with host in place of 127.0.0.1: for a client
// that reaches it at Options.Listen.
func (s *Server) URLOn(host string) string {
	return fmt.Sprintf("postgres://calq@%s/postgres?sslmode=disable", net.JoinHostPort(host, strconv.Itoa(s.port)))
}

// CreateDB creates the database name on the server and returns its URL.
func (s *Server) CreateDB(name string) string {
	s.t.Helper()
	Exec(s.t, s.URL, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	return strings.Replace(s.URL, "/postgres?", "/"+name+"?", 1)
}

// Relations lists the tables, sequences and views in schema of the
// database at url, by name.
func Relations(t testing.TB, url, schema string) []string {
	t.Helper()
	var names []string
	query(t, url, func(ctx context.Context, c *pgx.Conn) (err error) {
		rows, _ := c.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relkind IN ('r', 'S', 'v') ORDER BY 1`, schema)
		names, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return names
}

// Exec runs sql on the database at url, failing t on an error.
func Exec(t testing.TB, url, sql string) {
	t.Helper()
	query(t, url, func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, sql)
		return err
	})
}

// query runs fn on a connection to url, failing t on an error.
func query(t testing.TB, url string, fn func(context.Context, *pgx.Conn) error) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := fn(ctx, c); err != nil {
		t.Fatal(err)
	}
}
