// Package homedir finds the directories calq's defaults live under (the
// journal, the config file, LibreOffice's profiles) without ever falling
// back to the current directory: with HOME unset, os.UserHomeDir fails and
// a path joined onto its "" is relative, so a journal would land wherever
// calq happened to be started.
//
// Entry points: Dir (HOME, else the user's passwd entry) and CacheDir
// ($XDG_CACHE_HOME, else Dir's .cache). Each costs at most one read of
// /etc/passwd; both are safe for concurrent use.
package homedir

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
)

// ErrNone is wrapped by Dir's error when the user has no home directory.
var ErrNone = errors.New("no home directory")

// Dir is the user's home directory: $HOME when it is an absolute path,
// else the home of the user's entry in /etc/passwd (os/user reads that
// file without cgo), else an error wrapping ErrNone.
func Dir() (string, error) {
	if h := os.Getenv("HOME"); filepath.IsAbs(h) {
		return h, nil
	}
	u, err := user.Current()
	if err != nil {
		return "", fmt.Errorf("%w: HOME is unset and the user is not in /etc/passwd (%v)", ErrNone, err)
	}
	if !filepath.IsAbs(u.HomeDir) {
		return "", fmt.Errorf("%w: HOME is unset and user %s has none in /etc/passwd", ErrNone, u.Username)
	}
	return u.HomeDir, nil
}

// CacheDir is the user's cache directory: $XDG_CACHE_HOME when it is an
// absolute path, as the XDG base directory spec asks, else Dir's .cache.
func CacheDir() (string, error) {
	if x := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
		return x, nil
	}
	h, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".cache"), nil
}
