package sniff

import (
	"encoding/binary"
	"errors"
	"io"
	"unicode/utf16"
)

// A small, read-only reader of Microsoft's Compound File Binary format
// (MS-CFB, "OLE2"), the container of legacy .doc/.xls/.ppt files and of
// encrypted OOXML files. It reads just enough to list the top-level stream
// names and the first bytes of a stream. Every loop is bounded by the file
// size, so hostile files cost at most a pass over their sectors.

var errCFB = errors.New("malformed compound file")

const (
	cfbFree       = 0xFFFFFFFF
	cfbEndOfChain = 0xFFFFFFFE
	cfbMaxRegular = 0xFFFFFFFA
	cfbNoStream   = 0xFFFFFFFF
	cfbDirEntry   = 128
)

type cfbEntry struct {
	name  string
	typ   byte // 1 storage, 2 stream, 5 root
	left  uint32
	right uint32
	child uint32
	start uint32
	size  uint64
}

type cfbFile struct {
	r          io.ReaderAt
	size       int64
	sectorSize int64
	miniSize   int64
	miniCutoff uint64
	fat        []uint32
	miniFAT    []uint32
	dir        []cfbEntry
}

// openCFB parses the header, the FAT, the mini FAT and the directory.
func openCFB(r io.ReaderAt, size int64) (*cfbFile, error) {
	var h [512]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return nil, errCFB
	}
	if string(h[:8]) != oleMagic {
		return nil, errCFB
	}
	le := binary.LittleEndian
	shift, miniShift := le.Uint16(h[30:]), le.Uint16(h[32:])
	if (shift != 9 && shift != 12) || miniShift != 6 {
		return nil, errCFB
	}
	c := &cfbFile{r: r, size: size, sectorSize: 1 << shift, miniSize: 1 << miniShift,
		miniCutoff: uint64(le.Uint32(h[56:]))}
	if err := c.readFAT(h[:]); err != nil {
		return nil, err
	}
	var err error
	if c.miniFAT, err = c.readU32Chain(le.Uint32(h[60:])); err != nil {
		return nil, err
	}
	if err := c.readDir(le.Uint32(h[48:])); err != nil {
		return nil, err
	}
	return c, nil
}

// sectors is the number of whole or partial sectors after the header; it
// bounds every chain walk.
func (c *cfbFile) sectors() int64 {
	return (c.size - c.sectorSize + c.sectorSize - 1) / c.sectorSize
}

func (c *cfbFile) readSector(n uint32, buf []byte) error {
	if int64(n) >= c.sectors() {
		return errCFB
	}
	clear(buf)
	_, err := c.r.ReadAt(buf, (int64(n)+1)*c.sectorSize)
	if err != nil && err != io.EOF {
		return errCFB
	}
	return nil
}

// readFAT collects the FAT sector numbers from the header's 109 DIFAT slots
// and the DIFAT chain, then reads those sectors.
func (c *cfbFile) readFAT(h []byte) error {
	le := binary.LittleEndian
	limit := c.sectors()
	var fatSectors []uint32
	for i := 0; i < 109; i++ {
		if s := le.Uint32(h[76+4*i:]); s <= cfbMaxRegular {
			fatSectors = append(fatSectors, s)
		}
	}
	buf := make([]byte, c.sectorSize)
	per := int(c.sectorSize/4) - 1
	for s, n := le.Uint32(h[68:]), int64(0); s <= cfbMaxRegular; n++ {
		if n >= limit {
			return errCFB
		}
		if err := c.readSector(s, buf); err != nil {
			return err
		}
		for i := 0; i < per; i++ {
			if v := le.Uint32(buf[4*i:]); v <= cfbMaxRegular {
				fatSectors = append(fatSectors, v)
			}
		}
		s = le.Uint32(buf[4*per:])
	}
	if int64(len(fatSectors)) > limit {
		return errCFB
	}
	for _, s := range fatSectors {
		if err := c.readSector(s, buf); err != nil {
			return err
		}
		for i := int64(0); i < c.sectorSize; i += 4 {
			c.fat = append(c.fat, le.Uint32(buf[i:]))
		}
	}
	return nil
}

// chain returns the sector numbers of the chain starting at start.
func (c *cfbFile) chain(start uint32) ([]uint32, error) {
	var out []uint32
	for s := start; s != cfbEndOfChain; s = c.fat[s] {
		if s > cfbMaxRegular || int(s) >= len(c.fat) || int64(len(out)) >= c.sectors() {
			return nil, errCFB
		}
		out = append(out, s)
	}
	return out, nil
}

func (c *cfbFile) readU32Chain(start uint32) ([]uint32, error) {
	if start == cfbEndOfChain || start == cfbFree {
		return nil, nil
	}
	secs, err := c.chain(start)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, c.sectorSize)
	out := make([]uint32, 0, int64(len(secs))*c.sectorSize/4)
	for _, s := range secs {
		if err := c.readSector(s, buf); err != nil {
			return nil, err
		}
		for i := int64(0); i < c.sectorSize; i += 4 {
			out = append(out, binary.LittleEndian.Uint32(buf[i:]))
		}
	}
	return out, nil
}

func (c *cfbFile) readDir(start uint32) error {
	secs, err := c.chain(start)
	if err != nil || len(secs) == 0 {
		return errCFB
	}
	le := binary.LittleEndian
	buf := make([]byte, c.sectorSize)
	for _, s := range secs {
		if err := c.readSector(s, buf); err != nil {
			return err
		}
		for off := int64(0); off < c.sectorSize; off += cfbDirEntry {
			e := buf[off : off+cfbDirEntry]
			nameLen := int(le.Uint16(e[64:]))
			if nameLen > 64 {
				nameLen = 64
			}
			u := make([]uint16, 0, 32)
			for i := 0; i+1 < nameLen; i += 2 {
				if v := le.Uint16(e[i:]); v != 0 {
					u = append(u, v)
				}
			}
			c.dir = append(c.dir, cfbEntry{
				name: string(utf16.Decode(u)), typ: e[66],
				left: le.Uint32(e[68:]), right: le.Uint32(e[72:]), child: le.Uint32(e[76:]),
				start: le.Uint32(e[116:]), size: le.Uint64(e[120:]),
			})
		}
	}
	if c.dir[0].typ != 5 {
		return errCFB
	}
	return nil
}

// topLevel returns the entries directly under the root storage, keyed by name.
// The siblings form a red-black tree; a visited set guards against cycles.
func (c *cfbFile) topLevel() map[string]cfbEntry {
	out := map[string]cfbEntry{}
	seen := map[uint32]bool{}
	stack := []uint32{c.dir[0].child}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id == cfbNoStream || int(id) >= len(c.dir) || seen[id] {
			continue
		}
		seen[id] = true
		e := c.dir[id]
		if e.typ == 1 || e.typ == 2 {
			out[e.name] = e
		}
		stack = append(stack, e.left, e.right)
	}
	return out
}

// head returns up to n bytes from the start of stream e, from the regular
// sectors or, for small streams, from the mini stream held by the root entry.
func (c *cfbFile) head(e cfbEntry, n int) ([]byte, error) {
	if uint64(n) > e.size {
		n = int(e.size)
	}
	if e.size >= c.miniCutoff {
		return c.readChain(e.start, n)
	}
	root := c.dir[0]
	out := make([]byte, 0, n)
	limit := len(c.miniFAT)
	for s, steps := e.start, 0; len(out) < n; steps++ {
		if s > cfbMaxRegular || int(s) >= len(c.miniFAT) || steps > limit {
			return nil, errCFB
		}
		off := int64(s) * c.miniSize
		if uint64(off+c.miniSize) > root.size {
			return nil, errCFB
		}
		b, err := c.readAtStream(root.start, off, c.miniSize)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
		s = c.miniFAT[s]
	}
	return out[:n], nil
}

// readChain reads the first n bytes of the regular-sector chain at start.
func (c *cfbFile) readChain(start uint32, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	buf := make([]byte, c.sectorSize)
	for s, steps := start, int64(0); len(out) < n; steps++ {
		if s > cfbMaxRegular || int(s) >= len(c.fat) || steps > c.sectors() {
			return nil, errCFB
		}
		if err := c.readSector(s, buf); err != nil {
			return nil, err
		}
		out = append(out, buf...)
		s = c.fat[s]
	}
	return out[:n], nil
}

// readAtStream reads length bytes at offset off of the regular-sector stream
// starting at start (used for the mini stream; off and length stay within
// one sector because mini sectors divide sectors).
func (c *cfbFile) readAtStream(start uint32, off, length int64) ([]byte, error) {
	s := start
	for i := int64(0); i < off/c.sectorSize; i++ {
		if s > cfbMaxRegular || int(s) >= len(c.fat) || i > c.sectors() {
			return nil, errCFB
		}
		s = c.fat[s]
	}
	if s > cfbMaxRegular || int64(s) >= c.sectors() {
		return nil, errCFB
	}
	buf := make([]byte, length)
	if _, err := c.r.ReadAt(buf, (int64(s)+1)*c.sectorSize+off%c.sectorSize); err != nil && err != io.EOF {
		return nil, errCFB
	}
	return buf, nil
}
