package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"calq/convert/lo"
	"calq/internal/debris"
)

// doctorTimeout bounds calq doctor's trial of LibreOffice: a start (about
// 1 s, several on a fresh profile or a busy machine) and a one-line
// document.
const doctorTimeout = 2 * time.Minute

// errTempDir marks a trial that could not make its temporary directory.
var errTempDir = errors.New("no temporary directory")

// libreOffice proves that LibreOffice works rather than that soffice is
// on PATH: it starts an instance as calq convert does (its profile in
// o.StateDir) and converts a one-line document, and says how long that
// took, or why it failed.
func libreOffice(ctx context.Context, o DoctorOptions) Check {
	c := Check{Name: "LibreOffice", Fatal: true}
	dir, err := os.MkdirTemp("", debris.Pattern("doctor", false))
	if err != nil {
		c.Detail, c.Fix = fmt.Errorf("%w: %w", errTempDir, err).Error(), loFix(errTempDir)
		return c
	}
	defer os.RemoveAll(dir)
	path, version, err := lo.Find(o.Soffice)
	if err != nil {
		c.Detail, c.Fix = err.Error(), loFix(err)
		return c
	}
	took, fallback, err := tryConvert(ctx, dir, path, o.StateDir)
	if err != nil {
		c.Detail = fmt.Sprintf("%s at %s did not convert a one-line document: %v", version, path, err)
		c.Fix = loFix(err)
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%s at %s: started and converted a one-line document in %.1f s", version, path, took.Seconds())
	if fallback != nil {
		// Conversions work, each run on a new profile: slower, not broken.
		c.Detail += fmt.Sprintf("; %v, so its profiles are made anew in a temporary directory each run", fallback)
		c.Fix = "make " + o.StateDir + " a directory this user can write, or choose another with --state-dir"
	}
	return c
}

// tryConvert starts a one-instance pool with its profile in stateDir and
// converts a one-line document in dir. It returns the time both took,
// and why the pool could not keep its profile in stateDir, if so.
func tryConvert(ctx context.Context, dir, soffice, stateDir string) (took time.Duration, fallback, err error) {
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	in := filepath.Join(dir, "calq-doctor.txt")
	if err := os.WriteFile(in, []byte("calq doctor: a one-line document.\n"), 0o600); err != nil {
		return 0, nil, fmt.Errorf("%w: %w", errTempDir, err)
	}
	start := time.Now()
	p, err := lo.New(ctx, lo.Options{Soffice: soffice, Instances: 1, StateDir: stateDir})
	if err != nil {
		return 0, nil, err
	}
	defer p.Close()
	if err := p.Instances()[0].Convert(ctx, in, filepath.Join(dir, "calq-doctor.pdf"), lo.ConvertOptions{}); err != nil {
		return 0, nil, err
	}
	return time.Since(start), p.Fallback(), nil
}

// loFix says how to put right what stopped LibreOffice.
func loFix(err error) string {
	var h interface{ Hint() string }
	switch {
	case errors.As(err, &h) && h.Hint() != "":
		return h.Hint() + " (images and PDFs convert without it)"
	case errors.Is(err, errTempDir):
		return "set TMPDIR to a directory this user can write (calq and LibreOffice keep their temporary files there)"
	case strings.Contains(err.Error(), "No fonts could be found"): // LibreOffice's words
		return "apt-get install fonts-dejavu-core (LibreOffice cannot start without a font; see the scripts below for more)"
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("LibreOffice took over %v: is the machine overloaded, or out of memory?", doctorTimeout)
	}
	return "run soffice --headless --convert-to pdf FILE as this user to see LibreOffice's own complaint"
}
