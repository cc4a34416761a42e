package sniff

import (
	"bytes"
	"encoding/binary"
	"io"
	"regexp"
)

// Text-based formats (txt, csv, html, rtf, flat ODF), PDF and images.

// isText is the rule for .txt and .csv (and the first test for .html and flat
// ODF), applied to the first 8 KiB:
//   - with a UTF-16 byte-order mark, the 16-bit units must pass the control
//     test below (NUL units count as control characters);
//   - otherwise there must be no NUL byte, and
//   - at most 1 byte in 100 may be a C0 control character other than tab,
//     LF, VT, FF, CR, SUB (DOS end of file) and ESC, or DEL.
//
// Invalid UTF-8 is accepted: Latin-1 and Windows-125x text is common, and
// LibreOffice imports it (with replacement characters). Binary files almost
// always fail the rule (8 KiB of random bytes has a NUL with probability
// 1 - 1e-14), but a random file of a few bytes can pass; converting it is
// cheap and harmless.
func isText(b []byte) (bool, string) {
	if len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF) {
		order := binary.ByteOrder(binary.LittleEndian)
		if b[0] == 0xFE {
			order = binary.BigEndian
		}
		bad, n := 0, 0
		for i := 2; i+1 < len(b); i += 2 {
			if u := order.Uint16(b[i:]); u == 0 || u < 0x80 && badControl(byte(u)) {
				bad++
			}
			n++
		}
		return bad*100 <= n, "binary data: control characters"
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return false, "binary data: NUL bytes"
	}
	bad := 0
	for _, c := range b {
		if badControl(c) {
			bad++
		}
	}
	return bad*100 <= len(b), "binary data: control characters"
}

func badControl(c byte) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', 0x1A, 0x1B:
		return false
	}
	return c < 0x20 || c == 0x7F
}

func checkText(f format, r io.ReaderAt, size int64, head []byte) error {
	if ok, why := isText(head); !ok {
		return mismatch("content is not text (%s%s)", why, hint(head, r, size))
	}
	return nil
}

// looksHTML: a '<' within the first KiB. LibreOffice's HTML import accepts
// tag soup, so nothing stricter is useful.
func looksHTML(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 1024)], '<') >= 0
}

func checkHTML(f format, r io.ReaderAt, size int64, head []byte) error {
	if ok, why := isText(head); !ok {
		return mismatch("content is not HTML (%s%s)", why, hint(head, r, size))
	}
	if !looksHTML(trimBOM(head)) {
		return mismatch("content is not HTML (no '<' in the first KiB)")
	}
	return nil
}

func isRTF(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(trimBOM(head), " \t\r\n"), []byte(`{\rtf`))
}

func checkRTF(f format, r io.ReaderAt, size int64, head []byte) error {
	if !isRTF(head) {
		return mismatch(`content is not an RTF (no {\rtf signature%s)`, hint(head, r, size))
	}
	return nil
}

var flatODFMime = regexp.MustCompile(`office:mimetype="([^"]*)"`)

// checkFlatODF: XML text whose root office:document names the family.
func checkFlatODF(f format, r io.ReaderAt, size int64, head []byte) error {
	if ok, why := isText(head); !ok {
		return mismatch("content is not %s (%s%s)", article(f.name), why, hint(head, r, size))
	}
	m := flatODFMime.FindSubmatch(head)
	if !bytes.Contains(head, []byte("<office:document")) || m == nil {
		return mismatch("content is not %s (no office:document element in the first 8 KiB)", article(f.name))
	}
	if mime := string(m[1]); !odfFamily(mime, f.odfMime) {
		return mismatch("content is not %s (its mimetype is %q)", article(f.name), mime)
	}
	return nil
}

// checkPDF: "%PDF-" within the first 1024 bytes (readers allow leading
// junk), and no /Encrypt entry anywhere in the file. The scan cannot tell a
// PDF that opens with an empty user password (restrictions only) from one
// that needs a password; both are reported as password-protected.
func checkPDF(f format, r io.ReaderAt, size int64, head []byte) error {
	if !bytes.Contains(head[:min(len(head), 1024)], []byte("%PDF-")) {
		return mismatch("content is not a PDF (no %%PDF- signature in the first 1024 bytes%s)", hint(head, r, size))
	}
	enc, err := hasEncrypt(r, size)
	if err != nil {
		return err
	}
	if enc {
		return errPDFPassword
	}
	return nil
}

// encryptEntry matches the trailer (or cross-reference stream) entry
// "/Encrypt 12 0 R" or an inline "/Encrypt <<", but not /EncryptMetadata.
var encryptEntry = regexp.MustCompile(`/Encrypt[\x00\t\n\f\r ]*(?:\d+[\x00\t\n\f\r ]+\d+[\x00\t\n\f\r ]+R|<<)`)

// hasEncrypt scans the whole file in 1 MiB chunks that overlap by enough to
// hold one entry. The encryption dictionary reference is never inside a
// compressed object stream, so a plain byte scan finds it.
func hasEncrypt(r io.ReaderAt, size int64) (bool, error) {
	const chunk, overlap = 1 << 20, 128
	buf := make([]byte, min(size, chunk)+overlap)
	carry := 0
	for off := int64(0); off < size; {
		n, err := r.ReadAt(buf[carry:], off)
		if err != nil && err != io.EOF {
			return false, err
		}
		data := buf[:carry+n]
		if encryptEntry.Match(data) {
			return true, nil
		}
		off += int64(n)
		if n == 0 || err == io.EOF {
			break
		}
		carry = copy(buf, data[max(0, len(data)-overlap):])
	}
	return false, nil
}

// imageType names an image format by its signature, or "".
func imageType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "PNG"
	case bytes.HasPrefix(b, []byte("\xFF\xD8\xFF")):
		return "JPEG"
	case bytes.HasPrefix(b, []byte("II*\x00")), bytes.HasPrefix(b, []byte("MM\x00*")):
		return "TIFF"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "WebP"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "GIF"
	case isBMP(b):
		return "BMP"
	}
	return ""
}

// isBMP: "BM" alone is too weak (text can start so), so the DIB header size
// at offset 14 must be one of the known header versions.
func isBMP(b []byte) bool {
	if len(b) < 18 || string(b[:2]) != "BM" {
		return false
	}
	switch binary.LittleEndian.Uint32(b[14:]) {
	case 12, 40, 52, 56, 64, 108, 124:
		return true
	}
	return false
}

func checkImage(f format, r io.ReaderAt, size int64, head []byte) error {
	if got := imageType(head); got != f.magic {
		return mismatch("content is not %s (no %s signature%s)", article(f.name), f.magic, hint(head, r, size))
	}
	return nil
}
