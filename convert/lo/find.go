package lo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"calq/internal/proc"
)

// Find returns the path of soffice and its version ("LibreOffice 7.4.7.2
// 40(Build:2)"). path "" looks up soffice, then libreoffice, in PATH; any
// other path must name an executable. It runs `soffice --version` (about
// 0.1 s) with a throwaway HOME. The error wraps ErrNotInstalled when no
// executable is found.
func Find(path string) (soffice string, version string, err error) {
	soffice, err = lookSoffice(path)
	if err != nil {
		return "", "", err
	}
	home, err := os.MkdirTemp("", "calq-lo-version-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := proc.Command(ctx, proc.Options{Dir: home, Env: instanceEnv(os.Environ(), home, home), Grace: time.Second},
		soffice, "--headless", "--version")
	out, err := cmd.Output()
	version = strings.TrimSpace(string(out))
	if err != nil || !strings.Contains(version, "LibreOffice") {
		return soffice, version, fmt.Errorf("%s --version: %q, %v: not a working LibreOffice", soffice, version, err)
	}
	return soffice, version, nil
}

func lookSoffice(path string) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
		}
		return p, nil
	}
	for _, name := range []string{"soffice", "libreoffice"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		} else if !errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
		}
	}
	return "", fmt.Errorf("%w: neither soffice nor libreoffice is in PATH", ErrNotInstalled)
}
