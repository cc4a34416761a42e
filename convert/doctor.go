package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"calq/internal/dburl"
	"calq/sched/pgqueue"
)

// Check is one thing calq doctor looked at.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // how to put it right: when not OK, or OK but worse than it should be
	// Fatal says calq convert cannot work while this check fails
	// (LibreOffice for office documents, a writable directory); a
	// missing font is advice: documents still convert.
	Fatal bool `json:"fatal"`
}

// Problems returns the failed fatal checks as one error, nil when there
// are none.
func Problems(checks []Check) error {
	var errs []error
	for _, c := range checks {
		if !c.OK && c.Fatal {
			errs = append(errs, fmt.Errorf("%s: %s", c.Name, c.Detail))
		}
	}
	return errors.Join(errs...)
}

// DoctorOptions names what to check besides the tools.
type DoctorOptions struct {
	Soffice  string   // "" finds it on PATH
	Chromium string   // the chromium program; "" finds it on PATH
	StateDir string   // where LibreOffice keeps its profiles, as calq convert's --state-dir; "" for a temporary one
	Dirs     []string // directories calq must be able to write (state, output)
	DB       string   // a PostgreSQL address to connect to; "" for none
	Optional bool     // fonts are advice, not failures
}

// Doctor checks the environment calq convert needs: that LibreOffice
// starts and converts a one-line document (which costs a few seconds:
// it is proved, not assumed), that Chromium prints a one-line page (or
// how to install it: advice, HTML goes to LibreOffice without it), the fonts Office documents expect and the
// writing systems the installed fonts cover, writable directories, and
// that the shared database, if any, takes a connection.
// It never fails itself; each Check says what is wrong and how to fix it.
func Doctor(ctx context.Context, o DoctorOptions) []Check {
	checks := []Check{libreOffice(ctx, o), chromiumCheck(ctx, o.Chromium)}
	checks = append(checks, fontChecks(ctx)...)
	checks = append(checks, scriptChecks(ctx)...)
	for _, d := range o.Dirs {
		checks = append(checks, writable(d))
	}
	if o.DB != "" {
		checks = append(checks, database(ctx, o.DB))
	}
	return checks
}

// database checks that the PostgreSQL database db takes a connection.
// Neither the check's name nor its detail holds the password.
func database(ctx context.Context, db string) Check {
	c := Check{Name: "database", Fatal: true}
	version, err := pgqueue.Ping(ctx, db)
	if err != nil {
		c.Detail = err.Error()
		c.Fix = "start the server or correct the address; give the password in PGPASSWORD or ~/.pgpass"
		var h interface{ Hint() string }
		if errors.As(err, &h) && h.Hint() != "" {
			c.Fix = h.Hint()
		}
		return c
	}
	c.OK, c.Detail = true, "PostgreSQL "+version+" at "+dburl.Redact(db)
	return c
}

// writable checks that dir, or the nearest directory above it that
// exists (where calq would create it), takes a file; it creates nothing
// but a temporary file it removes.
func writable(dir string) Check {
	c := Check{Name: "writable " + dir, Fatal: true}
	at := filepath.Clean(dir)
	for {
		if fi, err := os.Stat(at); err == nil && fi.IsDir() {
			break
		}
		up := filepath.Dir(at)
		if up == at {
			break
		}
		at = up
	}
	f, err := os.CreateTemp(at, ".calq-doctor-*")
	if err != nil {
		c.Detail, c.Fix = err.Error(), fmt.Sprintf("make %s writable for this user, or choose another directory", at)
		return c
	}
	f.Close()
	os.Remove(f.Name())
	c.OK, c.Detail = true, "ok"
	if at != filepath.Clean(dir) {
		c.Detail = "will be created under " + at
	}
	return c
}
