package lo

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"calq/internal/tooltest"
)

// TestMemoryLimitDuringConversion: an instance that grows over the memory
// limit while converting is killed then, not after the conversion (which
// never ends here), with every process of it, and the conversion fails
// with ReasonMemoryLimit and a message naming the limit. The fake
// instance stays under the limit of 64 MiB until its client asks it to
// grow; then it holds 128 MiB.
func TestMemoryLimitDuringConversion(t *testing.T) {
	const limit = 64 << 20
	p, release := fakePoolWith(t, Options{MemoryLimit: limit})
	inst := p.Instances()[0]
	inst.mu.Lock()
	pgid := inst.run.pgid
	inst.mu.Unlock()
	if rss := groupRSS(pgid); rss == 0 || rss >= limit {
		t.Fatalf("the idle fake instance holds %d bytes, want some, under the limit of %d", rss, limit)
	}
	grow := filepath.Join(t.TempDir(), "grow.odt")
	if err := os.WriteFile(grow, []byte("grow"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "grow.pdf")
	err := inst.Convert(context.Background(), grow, out, ConvertOptions{})
	var ce *ConvertError
	if !errors.As(err, &ce) || ce.Reason != ReasonMemoryLimit || !strings.Contains(err.Error(), "over the limit of 64 MiB") {
		t.Fatalf("Convert = %v, want a ConvertError with reason %q naming the limit of 64 MiB", err, ReasonMemoryLimit)
	}
	t.Logf("Convert: %v", err)
	b, err := os.ReadFile(release + ".eater")
	if err != nil {
		t.Fatalf("the instance never started to grow, yet was stopped: %v", err)
	}
	eater, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitFor(t, "every process of the instance gone", func() bool {
		return len(groupPids(pgid)) == 0 && len(marked(profileArg(inst.l.profileURL()))) == 0 && zombie(strconv.Itoa(eater))
	})
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after the kill: %v, want none", out, err)
	}
	inst.mu.Lock()
	client := inst.client
	inst.mu.Unlock()
	if client != nil {
		t.Errorf("the client is still set after the kill")
	}
}

// groupPids returns the live processes of process group pgid.
func groupPids(pgid int) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && pgidOf(pid) == pgid && !zombie(e.Name()) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestMemoryLimitRealLibreOffice: a real instance that grows over the
// memory limit while converting is killed with all its processes, the
// file fails with ReasonMemoryLimit, and the next file converts on a
// fresh instance. The document is a 16383×16384 grey PNG of about 250 KB
// that LibreOffice 7.4 decodes in full (about 1 byte per pixel more
// memory, measured here); the limit is the idle instance's memory plus
// 128 MiB.
func TestMemoryLimitRealLibreOffice(t *testing.T) {
	if testing.Short() {
		t.Skip("converts a large image with LibreOffice")
	}
	tooltest.Require(t, "soffice")
	p, err := New(t.Context(), Options{Instances: 1, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	inst := p.Instances()[0]
	inst.mu.Lock()
	pgid := inst.run.pgid
	inst.mu.Unlock()
	idle := groupRSS(pgid)
	p.opts.MemoryLimit = idle + 128<<20 // read only by conversions, none of which runs yet
	dir := t.TempDir()
	big := filepath.Join(dir, "big.png")
	writeBlankPNG(t, big, 16383, 16384)
	err = inst.Convert(t.Context(), big, filepath.Join(dir, "big.pdf"), ConvertOptions{})
	var ce *ConvertError
	limit := strconv.FormatInt(p.opts.MemoryLimit>>20, 10) + " MiB"
	if !errors.As(err, &ce) || ce.Reason != ReasonMemoryLimit || !strings.Contains(err.Error(), limit) {
		t.Fatalf("Convert = %v, want a ConvertError with reason %q naming the limit of %s (idle: %d MiB)", err, ReasonMemoryLimit, limit, idle>>20)
	}
	t.Logf("idle instance %d MiB; Convert: %v", idle>>20, err)
	waitFor(t, "every process of the instance gone", func() bool {
		return len(groupPids(pgid)) == 0 && len(marked(profileArg(inst.l.profileURL()))) == 0
	})
	if _, err := os.Stat(filepath.Join(dir, "big.pdf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("big.pdf after the kill: %v, want none", err)
	}
	out := filepath.Join(dir, "simple.pdf")
	if err := inst.Convert(t.Context(), testdata(t, "simple.odt"), out, ConvertOptions{}); err != nil {
		t.Fatalf("the next file: %v", err)
	}
	checkPDF(t, out, 1)
}

// writeBlankPNG writes a black 8-bit grey PNG of w×h pixels, where
// (w+1)·h is a multiple of 1 MiB, in a few hundred KB.
func writeBlankPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	var b bytes.Buffer
	chunk := func(typ string, data []byte) {
		b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(data))))
		crc := crc32.NewIEEE()
		io.MultiWriter(&b, crc).Write(append([]byte(typ), data...))
		b.Write(binary.BigEndian.AppendUint32(nil, crc.Sum32()))
	}
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
	chunk("IHDR", append(ihdr, 8, 0, 0, 0, 0)) // 8 bits, grey, deflate, no filter, no interlace
	chunk("IDAT", zlibZeros(t, (w+1)*h))       // each row: filter type 0, then black pixels
	chunk("IEND", nil)
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// zlibZeros returns a zlib stream of n zero bytes, n a multiple of 1 MiB.
// Compressing them all takes seconds under the race detector; instead one
// compressed MiB is repeated, which is valid where it follows zeros since
// every back-reference in it then points at zeros.
func zlibZeros(t *testing.T, n int) []byte {
	t.Helper()
	const size = 1 << 20
	if n%size != 0 {
		t.Fatalf("zlibZeros(%d): not a multiple of %d", n, size)
	}
	var b bytes.Buffer
	b.Write([]byte{0x78, 0x01}) // deflate, 32 KiB window, no dictionary
	fw, _ := flate.NewWriter(&b, flate.BestSpeed)
	zeros := make([]byte, size)
	fw.Write(zeros)
	fw.Flush() // byte-aligned from here
	start := b.Len()
	fw.Write(zeros)
	fw.Flush()
	block := bytes.Clone(b.Bytes()[start:])
	for range n/size - 2 {
		b.Write(block)
	}
	b.Write([]byte{0x03, 0x00}) // an empty final block
	// Adler-32 of n zeros: A stays 1, B adds A once per byte.
	return binary.BigEndian.AppendUint32(b.Bytes(), uint32(n%65521)<<16|1)
}

// TestMemoryDefaults: the memory limit defaults to a share of the memory
// available, between 1 and 2 GiB, and an instance is recycled below half
// of it, so that every conversion starts with half the limit to spare.
func TestMemoryDefaults(t *testing.T) {
	if got := DefaultMemoryLimit(1); got < 1<<30 || got > 2<<30 {
		t.Errorf("DefaultMemoryLimit(1) = %d MiB, want 1024 to 2048", got>>20)
	}
	if _, err := os.Stat("/proc/meminfo"); err == nil {
		if got := DefaultMemoryLimit(1 << 30); got != 1<<30 {
			t.Errorf("DefaultMemoryLimit(2^30 instances) = %d MiB, want the floor of 1024", got>>20)
		}
	}
	tests := []struct {
		name              string
		o                 Options
		wantLimit, wantRS int64
	}{
		{"defaults", Options{}, DefaultMemoryLimit(1), min(1<<30, DefaultMemoryLimit(1)/2)},
		{"low limit", Options{MemoryLimit: 64 << 20}, 64 << 20, 32 << 20},
		{"both set", Options{MemoryLimit: 64 << 20, MaxRSS: 100 << 20}, 64 << 20, 100 << 20},
	}
	for _, tt := range tests {
		p, _ := fakePoolWith(t, tt.o)
		if p.opts.MemoryLimit != tt.wantLimit || p.opts.MaxRSS != tt.wantRS {
			t.Errorf("%s: MemoryLimit %d, MaxRSS %d; want %d, %d", tt.name, p.opts.MemoryLimit, p.opts.MaxRSS, tt.wantLimit, tt.wantRS)
		}
		p.Close()
	}
}
