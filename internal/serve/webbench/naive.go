package webbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"calq/internal/proc"
)

// naiveFlags are the flags of the naive baseline beside --headless and
// --print-to-pdf: no sandbox (root), no GPU, and the ones that keep
// chromium from calling home (on a closed network each such call costs
// a timeout), with no header and footer, as calq and Gotenberg print.
var naiveFlags = []string{"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-pdf-header-footer"}

// naiveTimeout bounds one naive conversion.
const naiveTimeout = 2 * time.Minute

// Naive converts each document with a chromium process of its own, one
// after the other, as a script does, sharing one profile directory
// (under work), and returns the time they took.
func Naive(ctx context.Context, binary, work string, docs []Doc) (time.Duration, error) {
	profile, out := filepath.Join(work, "naive-profile"), filepath.Join(work, "naive")
	if err := os.MkdirAll(out, 0o700); err != nil {
		return 0, fmt.Errorf("naive: %w", err)
	}
	begin := time.Now()
	for _, d := range docs {
		if err := naive1(ctx, binary, profile, filepath.Join(out, d.Name+".pdf"), d); err != nil {
			return 0, err
		}
	}
	return time.Since(begin), nil
}

func naive1(ctx context.Context, binary, profile, pdf string, d Doc) error {
	ctx, cancel := context.WithTimeout(ctx, naiveTimeout)
	defer cancel()
	argv := append([]string{binary, "--headless"}, naiveFlags...)
	argv = append(argv, "--user-data-dir="+profile, "--print-to-pdf="+pdf, "file://"+filepath.Join(d.Dir, "index.html"))
	cmd := proc.Command(ctx, proc.Options{Grace: time.Second}, argv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("naive: %s: %w: %s", d.Name, err, lastLine(stderr.Bytes()))
	}
	b, err := os.ReadFile(pdf)
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		return fmt.Errorf("naive: %s: chromium wrote no PDF: %v: %s", d.Name, err, lastLine(stderr.Bytes()))
	}
	return nil
}

// lastLine is the last line of a program's output, for an error.
func lastLine(b []byte) string {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return string(b)
}
