package emu

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pty is one pseudo-terminal pair. The emulator keeps the slave side open
// itself: without that, reading the master fails with EIO whenever no
// client has the device open (between two gammu runs, say).
type pty struct {
	master *os.File // nonblocking, so Close interrupts a pending Read
	slave  int      // held open, never read
	path   string   // the slave's path, which clients open
}

// openPTY opens a pseudo-terminal in raw mode. It does not use
// github.com/creack/pty because that package switches the master to
// blocking mode, after which closing it no longer interrupts a Read.
func openPTY() (*pty, error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("unlock pty: %w", err)
	}
	path := "/dev/pts/" + strconv.Itoa(n)
	sfd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err == nil {
		err = makeRaw(sfd)
	}
	if err != nil {
		unix.Close(fd)
		if sfd >= 0 {
			unix.Close(sfd)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// A nonblocking descriptor makes os.NewFile register it with the
	// runtime poller.
	return &pty{master: os.NewFile(uintptr(fd), "/dev/ptmx"), slave: sfd, path: path}, nil
}

// makeRaw is cfmakeraw(3): the line discipline must pass bytes through
// untouched (no echo of its own, no CR/LF translation) for clients that
// do not set the mode themselves, such as tests using os.OpenFile.
func makeRaw(fd int) error {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	return unix.IoctlSetTermios(fd, unix.TCSETS, t)
}

// close closes both sides: a client still holding the slave then reads
// EOF or EIO, as from a modem unplugged from USB.
func (p *pty) close() error {
	err := p.master.Close()
	if e := unix.Close(p.slave); err == nil && e != nil {
		err = e
	}
	return err
}
