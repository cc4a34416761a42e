package pgdb

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// refused is a real pgx connection error: nothing listens on the port.
func refused(t *testing.T) error {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = pgconn.Connect(context.Background(), "postgres://calq:sekret@"+addr+"/calq?sslmode=disable")
	if err == nil {
		t.Fatal("connected to a closed port")
	}
	return err
}

func TestTransient(t *testing.T) {
	conn := refused(t)
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"connection refused", conn, true},
		{"wrapped connection refused", fmt.Errorf("claim jobs: %w", conn), true},
		{"admin shutdown 57P01", &pgconn.PgError{Code: "57P01"}, true},
		{"starting up 57P03", &pgconn.PgError{Code: "57P03"}, true},
		{"too many connections 53300", &pgconn.PgError{Code: "53300"}, true},
		{"connection failure 08006", &pgconn.PgError{Code: "08006"}, true},
		{"bad password 28P01", &pgconn.PgError{Code: "28P01"}, false},
		{"no role 28000", &pgconn.PgError{Code: "28000"}, false},
		{"no database 3D000", &pgconn.PgError{Code: "3D000"}, false},
		{"undefined table 42P01", &pgconn.PgError{Code: "42P01"}, false},
		{"unique violation 23505", &pgconn.PgError{Code: "23505"}, false},
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), false},
		{"timed out", fmt.Errorf("renew: %w", context.DeadlineExceeded), true},
		{"connection closed", fmt.Errorf("q: %w", pgconn.ErrConnClosed), true},
		{"eof", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"certificate refused", &tls.CertificateVerificationError{Err: errors.New("bad")}, false},
		{"plain error", errors.New("no rows"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Transient(tc.err); got != tc.want {
				t.Errorf("Transient(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestErrorIsOneRedactedLine(t *testing.T) {
	conn := refused(t)
	for _, tc := range []struct {
		name, want, hint string
		err              error
	}{
		{"refused", "cannot connect to postgres://calq:xxxxx@h/calq: connection refused", "is the server up", conn},
		{"waited", "cannot connect to postgres://calq:xxxxx@h/calq: gave up waiting for the server after 3s: connection refused",
			"is the server up", &WaitError{Err: conn, Cause: context.DeadlineExceeded, Waited: 3 * time.Second}},
		{"auth", "open postgres://calq:xxxxx@h/calq: FATAL: no (SQLSTATE 28P01)", "password",
			&pgconn.PgError{Severity: "FATAL", Code: "28P01", Message: "no"}},
		{"no database", "open postgres://calq:xxxxx@h/calq: FATAL: no (SQLSTATE 3D000)", "createdb",
			&pgconn.PgError{Severity: "FATAL", Code: "3D000", Message: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := OpenError("postgres://calq:sekret@h/calq", tc.err)
			if got := err.Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			var h interface{ Hint() string }
			if !errors.As(err, &h) || !strings.Contains(h.Hint(), tc.hint) {
				t.Errorf("hint %q, want it to contain %q", h.Hint(), tc.hint)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("errors.Is(err, its cause) = false")
			}
		})
	}
}

func TestReasonIsOneLine(t *testing.T) {
	err := errors.Join(fmt.Errorf("lock schema: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating"}),
		pgconn.ErrConnClosed)
	if got, want := Reason(err), "lock schema: FATAL: terminating (SQLSTATE 57P01); conn closed"; got != want {
		t.Errorf("Reason = %q, want %q", got, want)
	}
	if got := Reason(refused(t)); got != "connection refused" {
		t.Errorf("Reason of a refused connection = %q, want %q", got, "connection refused")
	}
}

func TestLinkReportsEachOutageOnce(t *testing.T) {
	var got []string
	l := &Link{
		Lost: func(err error) { got = append(got, "lost: "+err.Error()) },
		Back: func(time.Duration) { got = append(got, "back") },
	}
	outage := &pgconn.PgError{Code: "57P01", Message: "shutdown"}
	l.OK()
	for range 16 {
		if !l.Fail(outage) {
			t.Fatal("Fail(57P01) = false, want an outage")
		}
	}
	if !l.Down() {
		t.Error("Down() = false during an outage")
	}
	if l.Fail(&pgconn.PgError{Code: "42P01"}) {
		t.Error("Fail(42P01) = true, want a refusal, not an outage")
	}
	l.OK()
	l.OK()
	l.Fail(outage)
	l.OK()
	want := []string{"lost: " + outage.Error(), "back", "lost: " + outage.Error(), "back"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reports %q, want %q", got, want)
	}
	var nilLink *Link
	nilLink.OK()
	if !nilLink.Fail(outage) || nilLink.Down() {
		t.Error("a nil Link must classify and report nothing")
	}
}

// silent is a real pgx connection error from a server that never
// answers: the connect timeout ran out.
func silent(t *testing.T) error {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = pgconn.Connect(ctx, "postgres://calq@"+l.Addr().String()+"/calq?sslmode=disable")
	if err == nil {
		t.Fatal("connected to a server that never answers")
	}
	return err
}

func TestRetry(t *testing.T) {
	outage := &pgconn.PgError{Code: "57P03", Message: "starting up"}
	t.Run("waits through an outage", func(t *testing.T) {
		var lost, back int
		l := &Link{Lost: func(error) { lost++ }, Back: func(time.Duration) { back++ }}
		tries := 0
		err := Retry(context.Background(), l, func(context.Context) error {
			if tries++; tries < 2 {
				return outage
			}
			return nil
		})
		if err != nil || tries != 2 || lost != 1 || back != 1 {
			t.Errorf("err %v, %d tries, %d lost, %d back; want nil, 2, 1, 1", err, tries, lost, back)
		}
	})
	t.Run("a refusal is not retried", func(t *testing.T) {
		tries := 0
		auth := &pgconn.PgError{Code: "28P01"}
		err := Retry(context.Background(), nil, func(context.Context) error { tries++; return auth })
		if !errors.Is(err, auth) || tries != 1 {
			t.Errorf("err %v after %d tries, want the refusal after 1", err, tries)
		}
	})
	t.Run("a timeout does not hide the cause", func(t *testing.T) {
		cause := refused(t)
		timeout := silent(t)
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			tries := 0
			err := Retry(ctx, nil, func(context.Context) error {
				switch tries++; tries {
				case 1:
					return cause
				case 2:
					return timeout
				}
				cancel()
				return timeout
			})
			var we *WaitError
			if !errors.As(err, &we) || tries != 3 {
				t.Fatalf("err %v after %d tries, want a WaitError after 3", err, tries)
			}
			if got, want := Reason(we.Err), Reason(cause); got != want {
				t.Errorf("the reason given is %q, want the cause %q (the error: %v)", got, want, err)
			}
		})
	})
	t.Run("interrupted while waiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		err := Retry(ctx, nil, func(context.Context) error { cancel(); return outage })
		var we *WaitError
		if !errors.As(err, &we) || !errors.Is(err, context.Canceled) || !errors.Is(err, outage) {
			t.Errorf("err %v, want a WaitError unwrapping to context.Canceled and the outage", err)
		}
	})
}

func TestObjects(t *testing.T) {
	got := Objects([]string{`CREATE SEQUENCE calq_seq;
		CREATE TABLE batches (key text);
		CREATE INDEX jobs_claim ON jobs (tag);
		create table if not exists Sms_Parts (x int);`, `CREATE VIEW sms_reports AS SELECT 1;`})
	want := []Object{{"SEQUENCE", "calq_seq"}, {"TABLE", "batches"}, {"TABLE", "sms_parts"}, {"VIEW", "sms_reports"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Objects = %v, want %v", got, want)
	}
}

func TestConfigure(t *testing.T) {
	for _, tc := range []struct{ url, schema, path string }{
		{"postgres://h/d", "calq", `"calq"`},
		{"postgres://h/d?search_path=shop,public", "shop", "shop,public"},
		{`postgres://h/d?search_path="Ours"`, "Ours", `"Ours"`},
	} {
		cc, err := pgx.ParseConfig(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := Configure(cc); got != tc.schema || cc.RuntimeParams["search_path"] != tc.path {
			t.Errorf("%s: schema %q, search_path %q; want %q, %q", tc.url, got, cc.RuntimeParams["search_path"], tc.schema, tc.path)
		}
		if cc.ConnectTimeout != 10*time.Second || cc.RuntimeParams["application_name"] != "calq" {
			t.Errorf("%s: connect timeout %v, application_name %q", tc.url, cc.ConnectTimeout, cc.RuntimeParams["application_name"])
		}
	}
}
