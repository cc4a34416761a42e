package sniff

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
)

// format is what an extension promises: a display name, the converter, and
// the check its content must pass. The family fields parametrise the shared
// checks.
type format struct {
	name  string // "DOCX", as used in messages
	kind  Kind
	check func(f format, r io.ReaderAt, size int64, head []byte) error

	ooxmlDir string // OOXML: the main part's folder, "word/"
	odfMime  string // ODF (zip or flat XML): the family's mimetype; sub-types add "-template", "-master", "-web"
	ole      string // OLE2: "doc", "xls" or "ppt"
	magic    string // images: key into imageMagic
	other    bool   // one of the other formats: protection not looked for
}

const (
	odfText         = "application/vnd.oasis.opendocument.text"
	odfSpreadsheet  = "application/vnd.oasis.opendocument.spreadsheet"
	odfPresentation = "application/vnd.oasis.opendocument.presentation"
	odfGraphics     = "application/vnd.oasis.opendocument.graphics"
)

// formats maps every supported extension to its format. Templates and
// macro-enabled variants share their family's checks: LibreOffice opens them
// with the same filters, and the profile calq runs it with never executes
// macros.
var formats = map[string]format{}

func init() {
	add := func(f format, exts ...string) {
		for _, e := range exts {
			f.name = strings.ToUpper(e)
			formats["."+e] = f
		}
	}
	add(format{kind: Office, check: checkOOXML, ooxmlDir: "word/"}, "docx", "docm", "dotx", "dotm")
	add(format{kind: Office, check: checkOOXML, ooxmlDir: "xl/"}, "xlsx", "xlsm", "xltx", "xltm", "xlsb")
	add(format{kind: Office, check: checkOOXML, ooxmlDir: "ppt/"}, "pptx", "pptm", "potx", "potm", "ppsx", "ppsm")
	add(format{kind: Office, check: checkODF, odfMime: odfText}, "odt", "ott", "odm", "otm", "oth")
	add(format{kind: Office, check: checkODF, odfMime: odfSpreadsheet}, "ods", "ots")
	add(format{kind: Office, check: checkODF, odfMime: odfPresentation}, "odp", "otp")
	add(format{kind: Office, check: checkODF, odfMime: odfGraphics}, "odg", "otg")
	add(format{kind: Office, check: checkFlatODF, odfMime: odfText}, "fodt")
	add(format{kind: Office, check: checkFlatODF, odfMime: odfSpreadsheet}, "fods")
	add(format{kind: Office, check: checkFlatODF, odfMime: odfPresentation}, "fodp")
	add(format{kind: Office, check: checkFlatODF, odfMime: odfGraphics}, "fodg")
	add(format{kind: Office, check: checkOLE, ole: "doc"}, "doc", "dot")
	add(format{kind: Office, check: checkOLE, ole: "xls"}, "xls", "xlt")
	add(format{kind: Office, check: checkOLE, ole: "ppt"}, "ppt", "pot", "pps")
	add(format{kind: Office, check: checkRTF}, "rtf")
	add(format{kind: Office, check: checkText}, "txt", "csv")
	add(format{kind: Office, check: checkHTML}, "html", "htm")
	add(format{kind: PDF, check: checkPDF}, "pdf")
	add(format{kind: Image, check: checkImage, magic: "PNG"}, "png")
	add(format{kind: Image, check: checkImage, magic: "JPEG"}, "jpg", "jpeg")
	add(format{kind: Image, check: checkImage, magic: "TIFF"}, "tif", "tiff")
	add(format{kind: Image, check: checkImage, magic: "WebP"}, "webp")
	add(format{kind: Image, check: checkImage, magic: "GIF"}, "gif")
	add(format{kind: Image, check: checkImage, magic: "BMP"}, "bmp")
	add(format{kind: Office, check: checkOOXML, ooxmlDir: "visio/"}, "vsdx", "vsdm")
	for ext, mime := range sunXML {
		add(format{kind: Office, check: checkODF, odfMime: mime}, ext)
	}
	for ext := range otherFormats {
		add(format{kind: Office, check: checkOther, other: true}, ext)
	}
}

// article gives "a" or "an" for a name read out letter by letter ("an ODT",
// "a DOCX", "an XLSX").
func article(name string) string {
	if name != "" && strings.ContainsRune("AEFHILMNORSX", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

const (
	zipMagic = "PK\x03\x04"
	oleMagic = "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"
)

// looksLike names the format of content by its first bytes, for hints in
// mismatch messages ("it looks like a PDF"); "" if nothing is recognised.
// Zip and OLE2 containers are named generically here; the container checks
// name the exact format.
func looksLike(head []byte) string {
	if m := imageType(head); m != "" {
		return m
	}
	s := trimBOM(head)
	switch {
	case bytes.HasPrefix(head, []byte(zipMagic)):
		return "zip archive"
	case bytes.HasPrefix(head, []byte(oleMagic)):
		return "legacy Office (OLE2) file"
	case bytes.Contains(head[:min(len(head), 1024)], []byte("%PDF-")):
		return "PDF"
	case bytes.HasPrefix(bytes.TrimLeft(s, " \t\r\n"), []byte(`{\rtf`)):
		return "RTF"
	}
	if ok, _ := isText(head); ok {
		if looksHTML(s) {
			return "HTML or XML text"
		}
		return "plain text"
	}
	return ""
}

// hint formats looksLike for a message: "; it looks like a PDF" or "".
// Containers are opened to name the exact format ("an XLSX", "a DOC").
func hint(head []byte, r io.ReaderAt, size int64) string {
	l := looksLike(head)
	switch l {
	case "":
		return ""
	case "plain text", "HTML or XML text":
		return "; it looks like " + l
	case "zip archive":
		if zr, err := zip.NewReader(r, size); err == nil {
			if got := zipFormat(zr); got != "" && got != "OOXML" {
				l = got
			}
		}
	case "legacy Office (OLE2) file":
		if c, err := openCFB(r, size); err == nil {
			top := c.topLevel()
			if _, ok := top["EncryptedPackage"]; ok {
				return "; it looks like a password-protected OOXML file"
			}
			if got := oleFormat(top); got != "" {
				l = strings.ToUpper(got)
			}
		}
	}
	return "; it looks like " + article(l)
}

func trimBOM(b []byte) []byte {
	return bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
}
