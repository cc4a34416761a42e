package base

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"calq/internal/fsio"
)

// Checks of the files, directories, programs and devices that flags name,
// made before any work: a typo in one is a usage error at once, not a
// failure of every job after the work, or a message queued for a device
// that does not exist. Each returns an error that names the flag and the
// path, with the reason.

// CheckDirWritable checks that dir is a directory calq can write in, or
// one it can create: its nearest existing ancestor is a directory it may
// write in.
func CheckDirWritable(flag, dir string) error {
	p := filepath.Clean(dir)
	for {
		fi, err := os.Stat(p)
		switch {
		case err == nil && !fi.IsDir() && p == filepath.Clean(dir):
			return fmt.Errorf("%s %s: is a file; give a directory", flag, dir)
		case err == nil && !fi.IsDir():
			return fmt.Errorf("%s %s: %s is a file, not a directory", flag, dir, p)
		case err == nil:
			if err := syscall.Access(p, 2|1); err != nil { // W_OK|X_OK
				return fmt.Errorf("%s %s: cannot write in %s: %w", flag, dir, p, err)
			}
			return nil
		case (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && filepath.Dir(p) != p:
			p = filepath.Dir(p)
		default:
			return fmt.Errorf("%s %s: %w", flag, dir, pathErr(err))
		}
	}
}

// CheckFileWritable checks that file can be created or replaced: it is
// missing or a regular file (never a directory, device or FIFO, which
// the rename into place would replace: /dev/null for the whole machine),
// and its directory exists and calq may write in it.
func CheckFileWritable(flag, file string) error {
	if err := CheckTarget(flag, file); err != nil {
		return err
	}
	dir := filepath.Dir(file)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("%s %s: no directory %s to write it in", flag, file, dir)
	case !fi.IsDir():
		return fmt.Errorf("%s %s: %s is not a directory", flag, file, dir)
	}
	if err := syscall.Access(dir, 2|1); err != nil { // W_OK|X_OK
		return fmt.Errorf("%s %s: cannot write in %s: %w", flag, file, dir, err)
	}
	return nil
}

// CheckProgram checks that prog names a program calq can run: a path to
// an executable file, or a name found on PATH.
func CheckProgram(flag, prog string) error {
	if prog == "" {
		return fmt.Errorf("%s: empty; give a program", flag)
	}
	if _, err := exec.LookPath(prog); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = ee.Err
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
			err = errors.New("no such program")
		}
		return fmt.Errorf("%s %s: %w", flag, prog, pathErr(err))
	}
	return nil
}

// CheckDevice checks that dev (through symlinks) is a character device,
// as serial ports and the emulator's ptys are.
func CheckDevice(flag, dev string) error {
	fi, err := os.Stat(dev)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: no such device", flag, dev)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, dev, pathErr(err))
	case fi.Mode()&fs.ModeCharDevice == 0:
		return fmt.Errorf("%s %s: %s, not a serial device", flag, dev, fileKind(fi.Mode()))
	}
	return nil
}

// fileKind names a mode's file type as an error message says it.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a block device"
}

// pathErr drops a *PathError's operation and path, which the message
// already names.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// CheckTarget checks that file is missing or a regular file (or a
// symlink to one, which the rename replaces, leaving its target alone).
func CheckTarget(flag, file string) error {
	if err := fsio.CheckTarget(file); errors.Is(err, fsio.ErrNotRegular) {
		return &Hinted{Err: fmt.Errorf("%s %w", flag, err),
			Help: "give the path of a regular file (it is written to a temporary file and renamed over it); to write none, leave " + flag + " out"}
	} else if err != nil {
		return fmt.Errorf("%s %s: %w", flag, file, pathErr(err))
	}
	return nil
}
