package sniff

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Result is what DetectFile found.
type Result struct {
	Kind Kind   // the converter for the content: Office, Image or PDF
	As   string // the extension (lower case, with the dot) to give a copy so that its converter reads the content right
	Note string // "" when content and name agree; else what was done, e.g. "content is HTML, not XLSX; converted as HTML"
}

// DetectFile is Detect that also accepts a file whose content is another
// format calq converts: HTML saved as .xls (a common web-app "Excel"
// export), a DOCX named .doc, a PDF named .docx. Such a file is to be
// converted by its content, as Result.As says, with a Note. Rejected are
// only files positively not convertible: empty, random bytes, truncated
// or corrupt containers, password-protected documents; errors are as
// Detect's.
func DetectFile(path string) (Result, error) {
	ext := strings.ToLower(filepath.Ext(path))
	kind, err := Detect(path)
	if err == nil {
		if f := formats[ext]; f.odfMime == odfText && ext != ".oth" && isODFWeb(path) {
			// An HTML template under another ODF text name: LibreOffice
			// opens it in Writer/Web whatever its name, so it goes the
			// way of .oth.
			return Result{Kind: kind, As: ".oth"}, nil
		}
		if (ext == ".html" || ext == ".htm") && isXHTML(path) {
			// LibreOffice opens HTML with an XML declaration in
			// Writer/Web, whose PDF is blank; calq reads .xhtml as HTML.
			return Result{Kind: kind, As: ".xhtml"}, nil
		}
		return Result{Kind: kind, As: ext}, nil
	}
	if !errors.Is(err, ErrMismatch) {
		return Result{}, err
	}
	as, name := byContent(path, ext)
	if as == "" {
		return Result{}, err
	}
	f := formats[as]
	note := fmt.Sprintf("content is %s, not %s; converted as %s", name, formats[ext].name, name)
	return Result{Kind: f.kind, As: as, Note: note}, nil
}

// isODFWeb says whether path is an ODF package whose mimetype is the
// HTML template's (text-web).
func isODFWeb(path string) bool {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return false
	}
	defer zr.Close()
	mime, ok := odfMimetype(&zr.Reader)
	return ok && mime == odfText+"-web"
}

// isXHTML says whether the text at path starts with an XML declaration.
func isXHTML(path string) bool {
	file, err := os.Open(path)
	if err != nil {
		return false
	}
	defer file.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(file, head)
	return bytes.HasPrefix(bytes.TrimLeft(trimBOM(head[:n]), " \t\r\n"), []byte("<?xml"))
}

// spreadsheet extensions: HTML under one of them is a web application's
// "Excel" export, which LibreOffice's Calc reads when the name says .xls
// (under .html, Writer/Web would make a document of the table).
var spreadsheet = map[string]bool{".xls": true, ".xlsx": true, ".xlsm": true, ".xlsb": true, ".xlt": true,
	".xltx": true, ".xltm": true, ".ods": true, ".ots": true, ".fods": true}

// byContent names the format of path's content, when it is one calq
// converts and its content passes that format's own check: the extension
// to give it and the format's name for the note. "" for none.
func byContent(path, ext string) (as, name string) {
	file, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return "", ""
	}
	size := fi.Size()
	head := make([]byte, min(size, headSize))
	if _, err := file.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return "", ""
	}
	as = contentExt(head, file, size)
	if as == "" || as == ext {
		return "", ""
	}
	if detect(formats[as], file, size) != nil {
		return "", ""
	}
	name = formats[as].name
	if as == ".html" || as == ".htm" {
		name = "HTML"
		if spreadsheet[ext] {
			return ".xls", "HTML"
		}
	}
	if as == ".txt" {
		name = "plain text"
	}
	return as, name
}

// contentExt is the extension of the format the content is, by its
// signature and structure; "" when it is none calq converts.
func contentExt(head []byte, r io.ReaderAt, size int64) string {
	if m := imageType(head); m != "" {
		return map[string]string{"PNG": ".png", "JPEG": ".jpg", "TIFF": ".tif", "WebP": ".webp", "GIF": ".gif", "BMP": ".bmp"}[m]
	}
	switch {
	case bytes.HasPrefix(head, []byte(zipMagic)):
		return zipExt(r, size)
	case bytes.HasPrefix(head, []byte(oleMagic)):
		if c, err := openCFB(r, size); err == nil {
			if fam := oleFormat(c.topLevel()); fam != "" {
				return "." + fam
			}
		}
		return ""
	case bytes.Contains(head[:min(len(head), 1024)], []byte("%PDF-")):
		return ".pdf"
	case isRTF(head):
		return ".rtf"
	}
	if ok, _ := isText(head); ok {
		if looksHTML(trimBOM(head)) {
			return ".html"
		}
		return ".txt"
	}
	return ""
}

// zipExt names an Office zip package by its structure.
func zipExt(r io.ReaderAt, size int64) string {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return ""
	}
	if mime, ok := odfMimetype(zr); ok {
		for _, e := range []string{"odt", "ods", "odp", "odg"} {
			if strings.HasPrefix(mime, formats["."+e].odfMime) {
				return "." + e
			}
		}
		return ""
	}
	switch zipFormat(zr) {
	case "DOCX":
		return ".docx"
	case "XLSX":
		return ".xlsx"
	case "PPTX":
		return ".pptx"
	}
	return ""
}
