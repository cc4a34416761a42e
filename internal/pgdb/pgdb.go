// Package pgdb holds what every calq connection to PostgreSQL shares: the
// schema calq's tables live in (Configure, Migrate), what counts as the
// server being away rather than refusing (Transient), waiting for it at
// start (Retry) and reporting an outage once when it begins and once when
// it ends (Link).
//
// Configure and Transient are pure; Migrate runs in the caller's
// transaction; Retry blocks until its operation succeeds, fails for good
// or its context ends. A Link is safe for concurrent use.
package pgdb

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultSchema is the schema of calq's tables when the URL sets no
// search_path.
const DefaultSchema = "calq"

// Configure sets what calq's connections need on cc: its application
// name, a connect timeout (10 s unless the URL sets connect_timeout) and a
// search_path whose first schema holds calq's tables. That schema, which
// it returns, is the first of the URL's search_path parameter, else
// DefaultSchema: calq's tables then never meet another application's of
// the same name in public.
func Configure(cc *pgx.ConnConfig) string {
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	cc.RuntimeParams["application_name"] = "calq"
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = 10 * time.Second
	}
	if sp := cc.RuntimeParams["search_path"]; strings.TrimSpace(sp) != "" {
		first, _, _ := strings.Cut(sp, ",")
		return strings.Trim(strings.TrimSpace(first), `"`)
	}
	cc.RuntimeParams["search_path"] = pgx.Identifier{DefaultSchema}.Sanitize()
	return DefaultSchema
}

// TransientCode reports whether a SQLSTATE is the server being away rather
// than refusing: connection exceptions (08), lack of resources such as too
// many connections (53), operator intervention such as a shutdown or a
// server still starting (57) and system errors (58). Anything else, an
// authentication failure (28) or a missing database (3D) among them, is
// permanent: trying again gives the same answer.
func TransientCode(code string) bool {
	switch code[:min(2, len(code))] {
	case "08", "53", "57", "58":
		return true
	}
	return false
}

// Transient reports whether err, from an operation on the server, says the
// server is away (down, starting, unreachable, gone mid-query) rather than
// that it refused: see TransientCode. A refused certificate, or a
// cancelled context, is not an outage; a timed-out operation is.
func Transient(err error) bool {
	var pe *pgconn.PgError
	var ce *tls.CertificateVerificationError
	var ue x509.UnknownAuthorityError
	var he x509.HostnameError
	var ne net.Error
	var ce2 *pgconn.ConnectError
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &pe):
		return TransientCode(pe.Code)
	case errors.As(err, &ce), errors.As(err, &ue), errors.As(err, &he):
		return false
	}
	return errors.As(err, &ce2) || errors.As(err, &ne) || pgconn.Timeout(err) || pgconn.SafeToRetry(err) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, context.DeadlineExceeded)
}

// WaitError is Retry's error when its context ended while the server was
// away: the last outage and how long it was waited for. It unwraps to
// both the outage and the context's cause (context.Canceled when
// interrupted, context.DeadlineExceeded when a timeout ran out).
type WaitError struct {
	Err    error // the last outage
	Cause  error
	Waited time.Duration
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("gave up waiting for the server after %v: %s", e.Waited.Round(time.Second), Reason(e.Err))
}

func (e *WaitError) Unwrap() []error { return []error{e.Err, e.Cause} }

// Retry runs op until it succeeds, fails other than by an outage (see
// Transient), or ctx ends. While the server is away it runs op again
// every second (each try bounded by the connect timeout) and reports the
// first outage to link, and success after it, when link is not nil.
// When ctx ends during an outage the error is a *WaitError.
func Retry(ctx context.Context, link *Link, op func(context.Context) error) error {
	start := time.Now()
	var last error
	for {
		err := op(ctx)
		if ctx.Err() != nil && (last != nil || Transient(err)) {
			// The last outage says more than the context's end does.
			return &WaitError{Err: cmp.Or(last, err), Cause: context.Cause(ctx), Waited: time.Since(start)}
		}
		if !Transient(err) || ctx.Err() != nil {
			if err == nil {
				link.OK()
			}
			return err
		}
		last = telling(last, err)
		link.Fail(err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// telling is the outage that says more of why the server is away: err,
// unless it is only a timeout and last said more. A try cut short by the
// connect timeout on a loaded machine must not hide that the server
// refused the connection a second before.
func telling(last, err error) error {
	if last != nil && timedOut(err) && !timedOut(last) {
		return last
	}
	return err
}

// timedOut reports whether err says only that time ran out.
func timedOut(err error) bool {
	var ne net.Error
	return pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
