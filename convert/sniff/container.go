package sniff

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"strings"
)

// Zip (OOXML, ODF) and OLE2 (legacy Office, encrypted OOXML) containers.
// Only directories and a few tiny entries are read, never document content.

// checkOOXML: a zip with [Content_Types].xml and the family's main folder.
// An OLE2 file holding an EncryptedPackage stream is an encrypted OOXML file.
func checkOOXML(f format, r io.ReaderAt, size int64, head []byte) error {
	if bytes.HasPrefix(head, []byte(oleMagic)) {
		return checkOLEForeign(f, r, size)
	}
	if !bytes.HasPrefix(head, []byte(zipMagic)) {
		return mismatch("content is not %s (no OOXML zip signature%s)", article(f.name), hint(head, r, size))
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return mismatch("truncated or corrupt %s (zip unreadable)", f.name)
	}
	if ooxmlHas(zr, f.ooxmlDir) {
		return nil
	}
	got := zipFormat(zr)
	switch {
	case got == "":
		return mismatch("content is not %s (a zip archive without [Content_Types].xml or mimetype)", article(f.name))
	case got == "OOXML":
		return mismatch("content is not %s (no %s part in the OOXML package)", article(f.name), f.ooxmlDir)
	}
	return mismatch("content is not %s (it looks like %s)", article(f.name), article(got))
}

// checkODF: a zip whose mimetype entry names the family; an encrypted
// package lists encryption-data in its manifest.
func checkODF(f format, r io.ReaderAt, size int64, head []byte) error {
	if !bytes.HasPrefix(head, []byte(zipMagic)) {
		return mismatch("content is not %s (no ODF zip signature%s)", article(f.name), hint(head, r, size))
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return mismatch("truncated or corrupt %s (zip unreadable)", f.name)
	}
	mime, ok := odfMimetype(zr)
	if !ok {
		if got := zipFormat(zr); got != "" && got != "OOXML" {
			return mismatch("content is not %s (it looks like %s)", article(f.name), article(got))
		}
		return mismatch("content is not %s (a zip archive without a mimetype entry)", article(f.name))
	}
	if !odfFamily(mime, f.odfMime) {
		return mismatch("content is not %s (its mimetype is %q)", article(f.name), mime)
	}
	if odfEncrypted(zr) {
		return errOfficePassword
	}
	return nil
}

// odfFamily says whether an ODF mimetype is family or one of the
// sub-types LibreOffice writes for it: "-template", "-master" and
// "-master-template" (text), "-web" (HTML template, text).
func odfFamily(mime, family string) bool {
	rest, ok := strings.CutPrefix(mime, family)
	return ok && (rest == "" || strings.HasPrefix(rest, "-"))
}

// zipFormat names an Office zip package by its structure: "DOCX", "XLSX",
// "PPTX", "ODT", "ODS", "ODP", "ODG", "OOXML" (content types but no known
// main folder) or "" (neither OOXML nor ODF).
func zipFormat(zr *zip.Reader) string {
	if mime, ok := odfMimetype(zr); ok {
		for _, e := range []string{"odt", "ods", "odp", "odg"} {
			if f := formats["."+e]; odfFamily(mime, f.odfMime) {
				return f.name
			}
		}
		return ""
	}
	var types bool
	dirs := map[string]bool{}
	for _, zf := range zr.File {
		if zf.Name == "[Content_Types].xml" {
			types = true
		}
		if i := strings.IndexByte(zf.Name, '/'); i > 0 {
			dirs[zf.Name[:i+1]] = true
		}
	}
	if !types {
		return ""
	}
	for _, e := range []string{"docx", "xlsx", "pptx"} {
		if dirs[formats["."+e].ooxmlDir] {
			return strings.ToUpper(e)
		}
	}
	return "OOXML"
}

// ooxmlHas reports whether zr has [Content_Types].xml and an entry under dir.
func ooxmlHas(zr *zip.Reader, dir string) bool {
	var types, main bool
	for _, zf := range zr.File {
		types = types || zf.Name == "[Content_Types].xml"
		main = main || strings.HasPrefix(zf.Name, dir)
	}
	return types && main
}

// odfMimetype returns the content of the mimetype entry (at most 200 bytes).
func odfMimetype(zr *zip.Reader) (string, bool) {
	b, ok := readEntry(zr, "mimetype", 200)
	return strings.TrimSpace(string(b)), ok
}

func odfEncrypted(zr *zip.Reader) bool {
	b, _ := readEntry(zr, "META-INF/manifest.xml", 4<<20)
	return bytes.Contains(b, []byte("encryption-data"))
}

// readEntry returns up to limit bytes of the named entry.
func readEntry(zr *zip.Reader, name string, limit int64) ([]byte, bool) {
	for _, zf := range zr.File {
		if zf.Name != name {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, false
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, limit))
		if err != nil && len(b) == 0 {
			return nil, false
		}
		return b, true
	}
	return nil, false
}

// The OLE2 streams that identify each legacy format.
var oleStreams = map[string][]string{
	"doc": {"WordDocument"},
	"xls": {"Workbook", "Book"},
	"ppt": {"PowerPoint Document"},
}

// checkOLE: an OLE2 file with the family's main stream, not encrypted. A
// .doc may also be RTF: Word and many web applications write RTF under that
// name, and LibreOffice detects it by content.
func checkOLE(f format, r io.ReaderAt, size int64, head []byte) error {
	if f.ole == "doc" && isRTF(head) {
		return nil
	}
	if !bytes.HasPrefix(head, []byte(oleMagic)) {
		return mismatch("content is not %s (no OLE2 signature%s)", article(f.name), hint(head, r, size))
	}
	c, err := openCFB(r, size)
	if err != nil {
		return mismatch("truncated or corrupt %s (OLE2 unreadable)", f.name)
	}
	top := c.topLevel()
	if _, ok := top["EncryptedPackage"]; ok {
		return errOfficePassword
	}
	got := oleFormat(top)
	if got != f.ole {
		if got == "" {
			return mismatch("content is not %s (an OLE2 file without the %s stream)", article(f.name), oleStreams[f.ole][0])
		}
		return mismatch("content is not %s (it looks like %s)", article(f.name), article(strings.ToUpper(got)))
	}
	if oleEncrypted(c, top, got) {
		return errOfficePassword
	}
	return nil
}

// checkOLEForeign handles an OLE2 file under an OOXML extension: encrypted
// OOXML, or a legacy file with the wrong extension.
func checkOLEForeign(f format, r io.ReaderAt, size int64) error {
	c, err := openCFB(r, size)
	if err != nil {
		return mismatch("content is not %s (a corrupt OLE2 file)", article(f.name))
	}
	top := c.topLevel()
	if _, ok := top["EncryptedPackage"]; ok {
		return errOfficePassword
	}
	if got := oleFormat(top); got != "" {
		return mismatch("content is not %s (it looks like a legacy %s)", article(f.name), strings.ToUpper(got))
	}
	return mismatch("content is not %s (an OLE2 file, not an OOXML zip)", article(f.name))
}

func oleFormat(top map[string]cfbEntry) string {
	for _, fam := range []string{"doc", "xls", "ppt"} {
		for _, s := range oleStreams[fam] {
			if e, ok := top[s]; ok && e.typ == 2 {
				return fam
			}
		}
	}
	return ""
}

// oleEncrypted applies each legacy format's own encryption marker:
//   - doc: the FIB's fEncrypted bit (MS-DOC 2.5.2: flags at offset 0x0A, bit 0x0100);
//   - xls: a FILEPASS record (0x002F) among the first records of the workbook
//     globals (MS-XLS 2.4.117: it follows BOF and at most WRITEPROTECT);
//   - ppt: the CurrentUserAtom's headerToken 0xF3D1C4DF (MS-PPT 2.3.2).
func oleEncrypted(c *cfbFile, top map[string]cfbEntry, fam string) bool {
	le := binary.LittleEndian
	switch fam {
	case "doc":
		b, err := c.head(top["WordDocument"], 12)
		return err == nil && len(b) == 12 && le.Uint16(b[10:])&0x0100 != 0
	case "xls":
		e, ok := top["Workbook"]
		if !ok {
			e = top["Book"]
		}
		b, err := c.head(e, 512)
		if err != nil {
			return false
		}
		for off, i := 0, 0; off+4 <= len(b) && i < 4; i++ {
			if le.Uint16(b[off:]) == 0x002F {
				return true
			}
			off += 4 + int(le.Uint16(b[off+2:]))
		}
	case "ppt":
		e, ok := top["Current User"]
		if !ok {
			return false
		}
		b, err := c.head(e, 16)
		return err == nil && len(b) == 16 && le.Uint32(b[12:]) == 0xF3D1C4DF
	}
	return false
}
