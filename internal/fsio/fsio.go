// Package fsio reads and replaces the files a user points calq at without
// trusting what they are: ReadFile reads at most a limit and refuses
// anything but a regular file (a FIFO would hang, /dev/zero would never
// end); CheckTarget and Rename refuse to put a file in place of a
// directory, device, FIFO or socket, so that --metrics-file /dev/null
// run as root never replaces the machine's /dev/null with a file.
//
// Entry points: ReadFile (one open, one fstat, at most limit+1 bytes),
// ReadAll (at most limit+1 bytes of a stream), Open (a FIFO's open ends
// with its ctx),
// CheckTarget (an lstat and a stat), Rename (CheckTarget then os.Rename),
// WriteFile (a whole file replaced at once, durably), SyncDir.
// All are safe for concurrent use.
package fsio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"calq/internal/debris"
)

// ErrNotRegular is wrapped by the errors of ReadFile, CheckTarget and
// Rename for a path that is a directory, device, FIFO or socket.
var ErrNotRegular = errors.New("not a regular file")

// Limits for the files calq reads.
const (
	SecretLimit = 4 << 10   // a password or PIN file
	ConfigLimit = 1 << 20   // a config file
	TextLimit   = 128 << 10 // an SMS text: 255 parts of 153 characters, 3 bytes each at most, fit
	InboxLimit  = 16 << 20  // sms emulate --inbox: hex PDUs, one per line
)

// TooLargeError is ReadFile's error for a file longer than its limit.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %s", e.Path, Size(e.Limit))
}

// Size renders n bytes as calq's messages do: "4 KiB", "1 MiB", "300 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// kind names what a non-regular mode is, for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "no regular file"
}

// NotRegularError is the error of ReadFile, CheckTarget and Rename for a
// path that exists and is not a regular file; it is ErrNotRegular for
// errors.Is.
type NotRegularError struct {
	Path string
	Kind string // "a directory", "a FIFO", "a character device", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s: %v", e.Path, e.Kind, ErrNotRegular)
}

func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// Regular returns nil when fi, which describes path, is a regular file,
// else a *NotRegularError: for a file opened by other means than
// ReadFile (a lock file, opened with O_NOFOLLOW|O_NONBLOCK and fstat'ed).
func Regular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return notRegular(path, fi.Mode())
}

func notRegular(path string, m fs.FileMode) error {
	return &NotRegularError{Path: path, Kind: kind(m)}
}

// ReadFile reads the regular file at path (through symlinks), refusing
// one longer than limit bytes with a *TooLargeError and anything else
// (a directory, a FIFO, a device) with ErrNotRegular. It opens with
// O_NONBLOCK so that a FIFO with no writer cannot block the open.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	if fi.Size() > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return ReadAll(f, path, limit) // limit+1 bytes: it may have grown since the fstat
}

// ReadAll reads r to its end as io.ReadAll does, but at most limit bytes:
// a longer stream (standard input from /dev/zero) is a *TooLargeError
// naming name, after limit+1 bytes were read, not a fatal out-of-memory.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Path: name, Limit: limit}
	}
	return b, nil
}

// Open opens path for reading as os.Open does, but a FIFO, whose open
// waits for a writer that may never come, is given up when ctx ends
// (ctx.Err()). Reads from the file are not bounded by ctx: close it for
// that (context.AfterFunc), which a FIFO's blocked read notices.
func Open(ctx context.Context, path string) (*os.File, error) {
	if fi, err := os.Stat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
	}
	// Be the writer the open waits for, so that it returns. Until the
	// goroutine is in its open there is no reader, and a non-blocking
	// open for writing fails (ENXIO): try again.
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case o := <-done:
			if o.f != nil {
				o.f.Close()
			}
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// CheckTarget returns nil when path may be replaced by a new regular
// file: nothing is there, or a regular file is, or a symlink to one.
// Anything else, a symlink to a device included, is ErrNotRegular.
func CheckTarget(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if fi, err = os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil // a dangling link: the rename replaces the link
		} else if err != nil {
			return err
		}
	}
	if !fi.Mode().IsRegular() {
		return notRegular(path, fi.Mode())
	}
	return nil
}

// Rename renames from over to as os.Rename does, unless to exists and
// is not a regular file (CheckTarget). A device swapped in between the
// check and the rename is not caught: the check is for a path the user
// gave by mistake, not for a race with someone who can write its
// directory.
func Rename(from, to string) error {
	if err := CheckTarget(to); err != nil {
		return err
	}
	return os.Rename(from, to)
}

// RenameAll renames each from[i] to to[i] in order, as Rename does; when
// one fails, it removes those renamed already, so that all are placed or
// none.
func RenameAll(from, to []string) error {
	for i := range from {
		if err := Rename(from[i], to[i]); err != nil {
			for _, placed := range to[:i] {
				os.Remove(placed)
			}
			return err
		}
	}
	return nil
}

// WriteFile replaces the file at path with data, with permissions perm,
// so that a reader or a crash sees the old file or the new one, never a
// part: data goes to a temporary file beside it (a debris.Pattern name,
// swept by debris.Sweep if the process dies), which is synced, renamed
// over path (see Rename) and its directory synced.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, debris.Pattern("write", true))
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Chmod(perm), f.Sync(), f.Close())
	if err == nil {
		err = Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return SyncDir(dir)
}

// SyncDir makes a rename, link or removal in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
