package emu

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
	"testing"
	"time"
)

// submit sends submitV1 with AT+CMGS and expects want after the PDU.
func (c *client) submit(want string) {
	c.t.Helper()
	c.do("AT+CMGS=24", "\r\n> ")
	c.send(submitV1 + "\x1a")
	c.expect(want)
}

func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault Fault
		run   func(c *client)
		log   int // lines logged
	}{
		{"CMS error, then the next one succeeds", Fault{CMSError: 38}, func(c *client) {
			c.do("AT+CSQ", "\r\n+CSQ: 20,99\r\n\r\nOK\r\n") // not an AT+CMGS: untouched
			c.submit("\r\n+CMS ERROR: 38\r\n")
			c.submit("\r\n+CMGS: 0\r\n\r\nOK\r\n")
		}, 1},
		{"prompt never comes", Fault{NoPrompt: true}, func(c *client) {
			c.send("AT+CMGS=24\r")
			c.send(submitV1 + "\x1a") // discarded: never sent
			c.send("\x1bAT\r")        // ESC frees the modem
			c.expect("\r\nOK\r\n")    // with no "> " before it
		}, 0},
		{"result never comes", Fault{NoResult: true}, func(c *client) {
			c.do("AT+CMGS=24", "\r\n> ")
			c.send(submitV1 + "\x1a")
			c.do("AT", "\r\nOK\r\n") // the first bytes after the PDU
			c.submit("\r\n+CMGS: 1\r\n\r\nOK\r\n")
		}, 2},
		{"URC inside a response", Fault{Command: "at+csq", URC: `+CMTI: "SM",9`}, func(c *client) {
			c.do("AT+CGMI", "\r\ncalq\r\n\r\nOK\r\n")
			c.do("AT+CSQ", "\r\n+CSQ: 20,99\r\n\r\n+CMTI: \"SM\",9\r\n\r\nOK\r\n")
			c.do("AT+CSQ", "\r\n+CSQ: 20,99\r\n\r\nOK\r\n")
		}, 0},
		{"URC inside the CMGS result", Fault{Command: "AT+CMGS", URC: "RING"}, func(c *client) {
			c.submit("\r\n+CMGS: 0\r\n\r\nRING\r\n\r\nOK\r\n")
		}, 1},
		{"URC in the next response", Fault{URC: "^RSSI: 12"}, func(c *client) {
			c.do("AT", "\r\n^RSSI: 12\r\n\r\nOK\r\n")
			c.do("AT", "\r\nOK\r\n")
		}, 0},
		// Delays are not measured (no timed assertions); the response
		// must still be whole.
		{"delay", Fault{Delay: time.Millisecond, Command: "AT+CMGS"}, func(c *client) {
			c.submit("\r\n+CMGS: 0\r\n\r\nOK\r\n")
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, log := start(t, Options{})
			dev := e.Devices()[0]
			c := dial(t, dev)
			c.do("ATE0", "ATE0\r\r\nOK\r\n")
			if err := e.Inject(dev, tc.fault); err != nil {
				t.Fatal(err)
			}
			tc.run(c)
			if got := log.records(t); len(got) != tc.log {
				t.Errorf("log = %v, want %d lines", got, tc.log)
			}
		})
	}
}

// gone checks that the client's read ends with an error and the device
// node is removed.
func gone(t *testing.T, c *client, dev string) {
	t.Helper()
	c.f.SetReadDeadline(time.Now().Add(safety))
	if n, err := c.f.Read(make([]byte, 16)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read after the device went: %d bytes, %v; want EOF or EIO", n, err)
	}
	if _, err := os.Stat(dev); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat %s: %v, want it removed", dev, err)
	}
}

func TestVanish(t *testing.T) {
	e, _ := start(t, Options{Modems: 2})
	dev := e.Devices()
	c := dial(t, dev[0])
	c.do("AT", "AT\r\r\nOK\r\n")
	if err := e.Inject(dev[0], Fault{Vanish: true}); err != nil {
		t.Fatal(err)
	}
	gone(t, c, dev[0])
	if err := e.Inject("/dev/pts/nonesuch", Fault{}); !errors.Is(err, ErrNoDevice) {
		t.Errorf("Inject(unknown) = %v, want ErrNoDevice", err)
	}
	// The other modem is unaffected.
	dial(t, dev[1]).do("AT", "AT\r\r\nOK\r\n")
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	e, err := Start(ctx, Options{Modems: 3})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, e.Devices()[0])
	c.do("AT", "AT\r\r\nOK\r\n")
	cancel()
	gone(t, c, e.Devices()[0])
	if err := e.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
	for _, d := range e.Devices() {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stat %s: %v, want it removed", d, err)
		}
	}
}

// TestCloseDuringLatency checks that Close interrupts a modem waiting out
// its latency: the PDU is neither answered nor logged.
func TestCloseDuringLatency(t *testing.T) {
	e, log := start(t, Options{Latency: time.Hour})
	dev := e.Devices()[0]
	c := dial(t, dev)
	c.do("ATE0", "ATE0\r\r\nOK\r\n")
	c.do("AT+CMGS=24", "\r\n> ")
	c.send(submitV1 + "\x1a")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	gone(t, c, dev)
	if got := log.records(t); len(got) != 0 {
		t.Errorf("log = %v, want nothing", got)
	}
}

// FuzzFeed feeds arbitrary client bytes to a modem: it must never panic
// or stop answering.
func FuzzFeed(f *testing.F) {
	for _, s := range []string{"AT\r", "ATE0\r", "AT+CMGS=24\r" + submitV1 + "\x1a", "AT+CMGS=24\r00\x1b",
		`AT+CPMS="SM",;+CSQ=?;+CMGD=1,4` + "\r", `AT+CSCA="+49",145;+CMGL="ALL"` + "\r", "AT+CMGR=\r", "ATS0=0&C1I\r"} {
		f.Add([]byte(s))
	}
	e, err := Start(context.Background(), Options{Inbox: []string{deliverV1}})
	if err != nil {
		f.Fatal(err)
	}
	defer e.Close()
	m := e.modems[0]
	// Drain the answers; the serving goroutine never reads while no
	// client writes, so feeding m directly does not race with it.
	cl, err := os.OpenFile(e.Devices()[0], os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		f.Fatal(err)
	}
	defer cl.Close()
	go io.Copy(io.Discard, cl)
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		m.feed(ctx, b)
		m.feed(ctx, []byte("\r\x1bAT\r")) // ends a line (maybe an AT+CMGS), then any prompt
		if m.mode != modeCommand {
			t.Errorf("mode %d after ESC, want command mode", m.mode)
		}
		m.mu.Lock()
		m.faults, m.locked = nil, false
		m.mu.Unlock()
	})
}
