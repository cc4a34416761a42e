package convert

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// openat2 is unix.Openat2, a variable so that a test can take it away,
// as a kernel before Linux 5.6 (or a seccomp filter) does.
var openat2 = unix.Openat2

// errSymlink says that a path on the share is or passes through a
// symbolic link, which calq never follows there: whoever can write the
// share could point it anywhere the reading user can read.
var errSymlink = errors.New("is or passes through a symlink, which calq does not follow on a share")

// openBeneath opens rel, a slash-separated path that the shared queue
// named, below the directory root: it follows no symbolic link and never
// leaves root (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or where
// the kernel lacks it a walk that opens each component with O_NOFOLLOW).
// flags are open(2)'s.
func openBeneath(root, rel string, flags int) (*os.File, error) {
	// fs.ValidPath wants UTF-8 too, but a file name is bytes: its
	// test of the elements ("", ".", "..", a leading /) is what counts, and
	// those are ASCII, which no replacement of other bytes changes.
	if !fs.ValidPath(strings.ToValidUTF8(rel, "_")) {
		return nil, fmt.Errorf("%q is not a path below the share", rel)
	}
	dir, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	// RESOLVE_NO_SYMLINKS refuses a symlink last too, with ELOOP, where
	// O_NOFOLLOW|O_DIRECTORY would say ENOTDIR.
	fd, err := openat2(int(dir.Fd()), rel, &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ENOSYS) {
		fd, err = walkBeneath(int(dir.Fd()), rel, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	}
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
		return nil, fmt.Errorf("%s %w", rel, errSymlink)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return os.NewFile(uintptr(fd), path.Join(root, rel)), nil
}

// walkBeneath opens rel below the directory dirfd one component at a
// time, none of them through a symlink (O_NOFOLLOW gives ELOOP on one).
// rel is fs.ValidPath: no "..", no ".", not absolute.
func walkBeneath(dirfd int, rel string, flags int) (int, error) {
	parts := strings.Split(rel, "/")
	fd := dirfd
	for i, p := range parts {
		f := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i == len(parts)-1 {
			f = flags
		}
		next, err := unix.Openat(fd, p, f, 0)
		var st unix.Stat_t
		if errors.Is(err, unix.ENOTDIR) && unix.Fstatat(fd, p, &st, unix.AT_SYMLINK_NOFOLLOW) == nil &&
			st.Mode&unix.S_IFMT == unix.S_IFLNK {
			err = unix.ELOOP // O_DIRECTORY|O_NOFOLLOW on a symlink says ENOTDIR
		}
		if fd != dirfd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// removeBeneath removes the file name (not a directory) from the
// directory dir below root, reached as openBeneath does: nothing outside
// it, and a symlink there is removed itself, not what it points to.
func removeBeneath(root, dir, name string) error {
	d, err := openBeneath(root, dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Unlinkat(int(d.Fd()), name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: path.Join(dir, name), Err: err}
	}
	return nil
}

// regular fails unless the opened file f is a regular file; name is for
// the message.
func regular(f *os.File, name string) (os.FileInfo, error) {
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is %s, not a regular file", name, modeKind(fi.Mode()))
	}
	return fi, err
}

// sharedWorkDir opens the share's calq directory (sharedWork) below root,
// through no symlink, making it first. It is as open to root's group as
// root is (and setgid when root is), so that workers and submitters run
// by different users of that group can leave and take PDFs there.
func sharedWorkDir(root string) (*os.File, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(root, sharedWork), 0o700); err == nil {
		dir := filepath.Join(root, sharedWork)
		if fi.Mode().Perm()&0o070 != 0 {
			// The root's group, not the maker's primary one, even where
			// root is not setgid; a maker outside it keeps its own.
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				if err := os.Lchown(dir, -1, int(st.Gid)); err != nil && !errors.Is(err, os.ErrPermission) {
					return nil, err
				}
			}
		}
		mode := 0o700 | fi.Mode().Perm()&0o070 | fi.Mode()&os.ModeSetgid
		if err := os.Chmod(dir, mode); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return openBeneath(root, sharedWork, unix.O_RDONLY|unix.O_DIRECTORY)
}

// writeShared copies the file at from to name in the share's calq
// directory: written aside under a name of its own and renamed, readable
// by root's group when root is.
func writeShared(ctx context.Context, root, name, from string) error {
	d, err := sharedWorkDir(root)
	if err != nil {
		return err
	}
	defer d.Close()
	fi, err := d.Stat()
	if err != nil {
		return err
	}
	var b [8]byte
	rand.Read(b[:])
	tmp := "." + name + "." + hex.EncodeToString(b[:])
	fd, err := unix.Openat(int(d.Fd()), tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &fs.PathError{Op: "create", Path: tmp, Err: err}
	}
	defer unix.Unlinkat(int(d.Fd()), tmp, 0) // after the rename, nothing
	f := os.NewFile(uintptr(fd), tmp)
	if fi.Mode().Perm()&0o040 != 0 {
		// The directory's group reads it, whatever group the maker's
		// files get by default.
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			if err := f.Chown(-1, int(st.Gid)); err != nil && !errors.Is(err, os.ErrPermission) {
				f.Close()
				return err
			}
		}
	}
	err = f.Chmod(0o600 | fi.Mode().Perm()&0o040)
	if err == nil {
		err = copyFrom(ctx, f, from)
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	return unix.Renameat(int(d.Fd()), tmp, int(d.Fd()), name)
}

// copyFrom copies the file at path to w.
func copyFrom(ctx context.Context, w io.Writer, path string) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = copyCtx(ctx, w, src)
	return err
}
