package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"calq/convert/lo"
	"calq/internal/childenv"
	"calq/internal/dburl"
	"calq/sched/pgqueue"
)

// Check is one thing calq doctor looked at.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // how to put it right, when not OK
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
	Dirs     []string // directories calq must be able to write (state, output)
	DB       string   // a PostgreSQL address to connect to; "" for none
	Optional bool     // fonts are advice, not failures
}

// fonts that make Office documents look right on Linux, with the Debian
// package that has them.
var fonts = []struct{ family, pkg, why string }{
	{"Carlito", "fonts-crosextra-carlito", "Calibri's metrics (Word and Excel's default since 2007)"},
	{"Caladea", "fonts-crosextra-caladea", "Cambria's metrics"},
	{"Liberation Sans", "fonts-liberation2", "Arial's and Times New Roman's metrics"},
	{"DejaVu Sans", "fonts-dejavu-core", "wide Unicode coverage"},
}

// Doctor checks the environment calq convert needs: LibreOffice and its
// version, the fonts Office documents expect, writable directories, and
// that the shared database, if any, takes a connection.
// It never fails itself; each Check says what is wrong and how to fix it.
func Doctor(ctx context.Context, o DoctorOptions) []Check {
	var checks []Check
	path, version, err := lo.Find(o.Soffice)
	if err != nil {
		checks = append(checks, Check{Name: "LibreOffice", Detail: err.Error(), Fatal: true,
			Fix: "apt-get install libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui (images and PDFs convert without it)"})
	} else {
		checks = append(checks, Check{Name: "LibreOffice", OK: true, Detail: version + " at " + path, Fatal: true})
	}
	checks = append(checks, fontChecks(ctx)...)
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

func fontChecks(ctx context.Context) []Check {
	cmd := exec.CommandContext(ctx, "fc-list", ":", "family")
	cmd.Env = childenv.Allowed(os.Environ()) // a helper program: the allow-list, as LibreOffice's
	out, err := cmd.Output()
	if err != nil {
		return []Check{{Name: "fonts", Detail: "fc-list did not run: " + err.Error(), Fix: "apt-get install fontconfig"}}
	}
	have := strings.ToLower(string(out))
	var checks []Check
	for _, f := range fonts {
		c := Check{Name: "font " + f.family, OK: strings.Contains(have, strings.ToLower(f.family)), Detail: f.why}
		if !c.OK {
			c.Fix = "apt-get install " + f.pkg
		}
		checks = append(checks, c)
	}
	return checks
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
