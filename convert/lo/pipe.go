package lo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// The UNO pipe is a unix socket LibreOffice makes in /tmp, whatever
// TMPDIR says, as /tmp/OSL_PIPE_<uid>_<name>, with the mode the umask
// leaves. Whoever connects to it drives the instance: reads and writes
// files as calq's user. So the instance runs with umask 077 (the socket is
// srwx------), its name is random for each start (nobody can create it
// first), and calq checks what it finds there before the helper talks to
// it: a socket of its own user, in a sticky /tmp, answered by a process of
// the instance (SO_PEERCRED). /tmp's sticky bit keeps another user from
// replacing the checked socket afterwards.

// ErrPipeForeign says the UNO pipe calq was to use belongs to someone
// else, or is not what LibreOffice makes: another local user may be
// trying to take over the instance. The instance is not used.
var ErrPipeForeign = errors.New("the UNO pipe is not the instance's")

// newPipeName returns the UNO pipe name of a new start: 128 random bits.
// Tests replace it to squat a name.
var newPipeName = func() string {
	return "calq_" + hex.EncodeToString(randomBytes(16))
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b) // never fails on Linux (crypto/rand documents it)
	return b
}

// pipeFree returns an error wrapping ErrPipeForeign when something is
// at path already: with a random name, only someone who saw it could
// have put it there.
func pipeFree(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check the UNO pipe %s: %w", path, err)
	}
	return fmt.Errorf("%w: %s exists before LibreOffice started (%s)", ErrPipeForeign, path, ownerOf(fi))
}

// ownerOf describes fi's owner and mode, for an error.
func ownerOf(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("owned by uid %d, mode %v", st.Uid, fi.Mode())
	}
	return fmt.Sprintf("mode %v", fi.Mode())
}

// awaitPipe waits until the instance r has made its UNO pipe at path and
// checks it (checkPipe), unless r exits, ctx is done or closing is closed
// first.
func awaitPipe(ctx context.Context, path string, r *run, closing <-chan struct{}) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Lstat(path); err == nil {
			return checkPipe(path, r.pgid)
		}
		select {
		case <-r.done:
			return errSofficeExited
		case <-ctx.Done():
			return ctx.Err()
		case <-closing:
			return ErrClosed
		case <-tick.C:
		}
	}
}

// checkPipe checks that the socket at path is the pipe of the instance
// whose process group is pgid: a socket of calq's user that no one else
// may open, in a directory where no one else can replace it, answered by
// a process of that group.
func checkPipe(path string, pgid int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("check the UNO pipe: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || fi.Mode()&os.ModeSocket == 0 || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%w: %s is %s; want a socket of uid %d that only it may open", ErrPipeForeign, path, ownerOf(fi), os.Getuid())
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return err
	}
	peer, err := peerOf(path)
	if err != nil {
		return fmt.Errorf("check the UNO pipe %s: %w", path, err)
	}
	if int(peer.Uid) != os.Getuid() || pgidOf(int(peer.Pid)) != pgid {
		return fmt.Errorf("%w: %s is answered by pid %d of uid %d, not by the instance (process group %d)",
			ErrPipeForeign, path, peer.Pid, peer.Uid, pgid)
	}
	return nil
}

// privateDir checks that no other user can remove or replace what calq's
// user has in dir: dir is calq's and closed to others, or sticky.
func privateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("check the UNO pipe's directory: %w", err)
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	if fi.Mode()&os.ModeSticky != 0 || (st != nil && int(st.Uid) == os.Getuid() && fi.Mode().Perm()&0o022 == 0) {
		return nil
	}
	return fmt.Errorf("%w: %s is writable by other users and not sticky (%s): they could replace the pipe", ErrPipeForeign, dir, ownerOf(fi))
}

// peerOf connects to the socket at path and returns who answered.
func peerOf(path string) (*syscall.Ucred, error) {
	c, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, serr
}
