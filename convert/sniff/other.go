package sniff

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"strings"
)

// The other formats LibreOffice imports (graphics, Sun XML, other
// applications' documents), each with the cheapest check its content
// allows: a signature, a marker near the start of a text, a container's
// structure. A format without a signature (opaque) must be binary and no
// format calq knows by its content, so that a PDF or a DOCX under its name
// is still converted as what it is (DetectFile). Math formulas (.mml,
// .sxm) are left out: LibreOffice 7.4 does not load them headless.

// sig is the check of one of the other formats: ok says whether the
// content passes; lack what it lacks when it does not.
type sig struct {
	ok   func(head []byte, r io.ReaderAt, size int64) bool
	lack string
}

// byHead is a check that needs only the first bytes.
func byHead(ok func([]byte) bool) func([]byte, io.ReaderAt, int64) bool {
	return func(h []byte, _ io.ReaderAt, _ int64) bool { return ok(h) }
}

// prefix accepts content starting with one of ps.
func prefix(ps ...string) func([]byte, io.ReaderAt, int64) bool {
	return byHead(func(h []byte) bool {
		for _, p := range ps {
			if bytes.HasPrefix(h, []byte(p)) {
				return true
			}
		}
		return false
	})
}

// either accepts content one of oks accepts.
func either(oks ...func([]byte, io.ReaderAt, int64) bool) func([]byte, io.ReaderAt, int64) bool {
	return func(h []byte, r io.ReaderAt, size int64) bool {
		for _, ok := range oks {
			if ok(h, r, size) {
				return true
			}
		}
		return false
	}
}

// otherFormats are the other formats' checks, by extension without the dot.
var otherFormats = map[string]sig{
	"svg":   {textWith("<svg"), "an <svg element in the first KiB"},
	"xml":   {textWith("<"), "an XML element in the first KiB"},
	"abw":   {textWith("<"), "an XML element in the first KiB"},
	"vdx":   {textWith("<"), "an XML element in the first KiB"},
	"xhtml": {textWith("<"), "a '<' in the first KiB"},
	"dif":   {textWith("TABLE"), "a DIF TABLE header"},
	"slk":   {textWith("ID;"), "a SYLK ID record"},
	"xbm":   {textWith("#define"), "an XBM #define"},
	"xpm":   {textWith("XPM"), "an XPM comment"},
	"dxf":   {textWith("SECTION"), "a DXF SECTION"},
	"602":   {textWith(""), "text"},

	"pbm":  {prefix("P1", "P4"), "a PBM signature"},
	"pgm":  {prefix("P2", "P5"), "a PGM signature"},
	"ppm":  {prefix("P3", "P6"), "a PPM signature"},
	"wpd":  {prefix("\xFFWPC"), "a WordPerfect signature"},
	"wpg":  {prefix("\xFFWPC"), "a WordPerfect signature"},
	"emf":  {byHead(func(h []byte) bool { return len(h) >= 44 && string(h[40:44]) == " EMF" }), "an EMF signature"},
	"wmf":  {prefix("\xD7\xCD\xC6\x9A", "\x01\x00\x09\x00", "\x02\x00\x09\x00"), "a WMF signature"},
	"eps":  {prefix("%!PS", "\xC5\xD0\xD3\xC6"), "a PostScript signature"},
	"psd":  {prefix("8BPS"), "a Photoshop signature"},
	"ras":  {prefix("\x59\xA6\x6A\x95"), "a Sun raster signature"},
	"svm":  {prefix("VCLMTF", "SVGDI"), "a StarView metafile signature"},
	"zabw": {prefix("\x1F\x8B"), "a gzip signature"},
	"123":  {prefix("\x00\x00\x1A\x00"), "a Lotus 1-2-3 BOF record"},
	"wk1":  {prefix("\x00\x00\x02\x00"), "a Lotus BOF record"},
	"wb2":  {prefix("\x00\x00\x02\x00"), "a Quattro Pro BOF record"},
	"cwk":  {byHead(func(h []byte) bool { return len(h) >= 8 && string(h[4:8]) == "BOBO" }), "a ClarisWorks signature"},
	"cdr":  {riff("CDR"), "a CorelDRAW RIFF signature"},
	"cmx":  {riff("CMX"), "a Corel CMX RIFF signature"},
	"pcx":  {byHead(isPCX), "a PCX header"},
	"tga":  {byHead(isTGA), "a TARGA header"},
	"dbf":  {byHead(isDBF), "a dBase header"},
	"pdb":  {byHead(func(h []byte) bool { return len(h) >= 78 && printableASCII(h[60:68]) }), "a Palm database header"},
	"cgm":  {byHead(isCGM), "a CGM BEGIN METAFILE"},

	"vsd":     {isOLE, "an OLE2 container"},
	"pub":     {isOLE, "an OLE2 container"},
	"wps":     {isOLE, "an OLE2 container"},
	"sdw":     {isOLE, "an OLE2 container"},
	"sdc":     {isOLE, "an OLE2 container"},
	"sda":     {isOLE, "an OLE2 container"},
	"sdd":     {isOLE, "an OLE2 container"},
	"wks":     {either(isOLE, prefix("\x00\x00\x02\x00")), "an OLE2 container or a Lotus BOF record"},
	"xlw":     {either(isOLE, byHead(func(h []byte) bool { return len(h) >= 2 && h[0] == 0x09 && h[1]&0xF1 == 0 })), "an OLE2 container or a BIFF BOF record"},
	"hwp":     {either(isOLE, prefix("HWP Document File")), "an OLE2 container or a Hangul signature"},
	"key":     {isIWork, "a zip that is neither OOXML nor ODF"},
	"numbers": {isIWork, "a zip that is neither OOXML nor ODF"},
	"pages":   {isIWork, "a zip that is neither OOXML nor ODF"},

	"mcw": {opaque, "binary data of no other format"},
	"mw":  {opaque, "binary data of no other format"},
	"met": {opaque, "binary data of no other format"},
	"pct": {opaque, "binary data of no other format"},
	"pcd": {opaque, "binary data of no other format"},
	"lwp": {opaque, "binary data of no other format"},
}

// sunXML are the mimetypes of the Sun XML (OpenOffice.org 1) packages,
// ODF's forerunners: checkODF checks them.
var sunXML = map[string]string{
	"sxw": "application/vnd.sun.xml.writer", "stw": "application/vnd.sun.xml.writer.template",
	"sxg": "application/vnd.sun.xml.writer.global", "sxc": "application/vnd.sun.xml.calc",
	"stc": "application/vnd.sun.xml.calc.template", "sxd": "application/vnd.sun.xml.draw",
	"std": "application/vnd.sun.xml.draw.template", "sxi": "application/vnd.sun.xml.impress",
	"sti": "application/vnd.sun.xml.impress.template",
}

// checkOther applies an other format's check.
func checkOther(f format, r io.ReaderAt, size int64, head []byte) error {
	s := otherFormats[strings.ToLower(f.name)]
	if s.ok(head, r, size) {
		return nil
	}
	return mismatch("content is not %s (no %s%s)", article(f.name), strings.TrimPrefix(strings.TrimPrefix(s.lack, "an "), "a "), hint(head, r, size))
}

// textWith accepts text (isText) holding marker in its first KiB.
func textWith(marker string) func([]byte, io.ReaderAt, int64) bool {
	return byHead(func(h []byte) bool {
		ok, _ := isText(h)
		return ok && bytes.Contains(trimBOM(h)[:min(len(trimBOM(h)), 1024)], []byte(marker))
	})
}

func riff(form string) func([]byte, io.ReaderAt, int64) bool {
	return byHead(func(h []byte) bool {
		return len(h) >= 12 && string(h[:4]) == "RIFF" && string(h[8:8+len(form)]) == form
	})
}

func isOLE(h []byte, r io.ReaderAt, size int64) bool {
	if !bytes.HasPrefix(h, []byte(oleMagic)) {
		return false
	}
	_, err := openCFB(r, size)
	return err == nil
}

// isIWork: a readable zip that is neither OOXML nor ODF (Apple's
// packages have no one file to look for across their versions).
func isIWork(h []byte, r io.ReaderAt, size int64) bool {
	if !bytes.HasPrefix(h, []byte(zipMagic)) {
		return false
	}
	zr, err := zip.NewReader(r, size)
	return err == nil && zipFormat(zr) == ""
}

// opaque accepts binary content that is no format calq knows by content.
func opaque(h []byte, r io.ReaderAt, size int64) bool {
	text, _ := isText(h)
	return !text && contentExt(h, r, size) == ""
}

// isPCX: the ZSoft manufacturer byte, a known version and encoding 0 or 1.
func isPCX(h []byte) bool {
	return len(h) >= 128 && h[0] == 0x0A && (h[1] <= 5 && h[1] != 1) && h[2] <= 1 && h[3] > 0
}

// isTGA: a colour map type of 0 or 1, a known image type and pixel depth,
// and a non-empty image.
func isTGA(h []byte) bool {
	if len(h) < 18 || h[1] > 1 {
		return false
	}
	switch h[2] {
	case 1, 2, 3, 9, 10, 11:
	default:
		return false
	}
	le := binary.LittleEndian
	switch h[16] {
	case 8, 15, 16, 24, 32:
	default:
		return false
	}
	return le.Uint16(h[12:]) > 0 && le.Uint16(h[14:]) > 0
}

// isDBF: a known dBase version byte and a header at least as long as one
// field descriptor.
func isDBF(h []byte) bool {
	if len(h) < 32 {
		return false
	}
	switch h[0] {
	case 0x02, 0x03, 0x04, 0x05, 0x30, 0x31, 0x32, 0x43, 0x63, 0x83, 0x8B, 0xCB, 0xF5, 0xFB:
	default:
		return false
	}
	return binary.LittleEndian.Uint16(h[8:]) >= 33 && h[2] >= 1 && h[2] <= 12 && h[3] >= 1 && h[3] <= 31
}

// isCGM: BEGIN METAFILE in clear text, or as the first binary element
// (class 0, id 1).
func isCGM(h []byte) bool {
	if bytes.HasPrefix(bytes.ToUpper(h[:min(len(h), 5)]), []byte("BEGMF")) {
		return true
	}
	return len(h) >= 2 && h[0] == 0x00 && h[1]&0xE0 == 0x20
}

func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7E {
			return false
		}
	}
	return true
}
