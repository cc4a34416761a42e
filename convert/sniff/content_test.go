package sniff

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

func corpus(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func zipOf(t *testing.T, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(entries[i+1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDetectContent gives Detect known content under a chosen name.
func TestDetectContent(t *testing.T) {
	docx, odt := corpus(t, "sample_3.docx"), corpus(t, "simple.odt")
	doc, xls := corpus(t, "testWORD_various.doc"), corpus(t, "SampleSS.xls")
	png, pdfFile := corpus(t, "testPNG.png"), corpus(t, "testPDF.pdf")
	encrypted, err := os.ReadFile(filepath.Join(testdata, "protected", "protected.docx"))
	if err != nil {
		t.Fatal(err)
	}
	pptMarked := bytes.Replace(corpus(t, "basic_test_ppt_file.ppt"),
		[]byte("\x5F\xC0\x91\xE3"), []byte("\xDF\xC4\xD1\xF3"), 1)
	utf16le := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune("Grüße, 世界\r\n")) {
		utf16le = append(utf16le, byte(u), byte(u>>8))
	}
	const flat = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" office:version="1.3" ` +
		`office:mimetype="application/vnd.oasis.opendocument.text"><office:body/></office:document>`
	pdfEnc := func(entry string) []byte {
		return []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer\n<</Root 1 0 R" + entry + ">>\nstartxref\n0\n%%EOF\n")
	}
	// /Encrypt split by the 1 MiB chunk boundary of the scan.
	straddle := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte(" "), 1<<20-9-4)...)
	straddle = append(straddle, "<</Encrypt 9 0 R>>"...)
	bmp := append([]byte("BM\x00\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00"), make([]byte, 40)...)

	tests := []struct {
		name string
		data []byte
		want want
	}{
		// Real files under another extension.
		{"docx.xlsx", docx, mismatchOf("content is not an XLSX (it looks like a DOCX)")},
		{"docx.odt", docx, mismatchOf("content is not an ODT (it looks like a DOCX)")},
		{"odt.docx", odt, mismatchOf("content is not a DOCX (it looks like an ODT)")},
		{"odt.ods", odt, mismatchOf(`content is not an ODS (its mimetype is "application/vnd.oasis.opendocument.text")`)},
		{"doc.docx", doc, mismatchOf("content is not a DOCX (it looks like a legacy DOC)")},
		{"doc.xls", doc, mismatchOf("content is not an XLS (it looks like a DOC)")},
		{"xls.ppt", xls, mismatchOf("content is not a PPT (it looks like an XLS)")},
		{"png.jpg", png, mismatchOf("content is not a JPG (no JPEG signature; it looks like a PNG)")},
		{"png.txt", png, mismatchOf("content is not text (binary data: NUL bytes; it looks like a PNG)")},
		{"pdf.docx", pdfFile, mismatchOf("content is not a DOCX (no OOXML zip signature; it looks like a PDF)")},
		{"html.pdf", corpus(t, "testHTML_utf8.html"),
			mismatchOf("content is not a PDF (no %PDF- signature in the first 1024 bytes; it looks like HTML or XML text)")},
		{"txt.html", corpus(t, "testTXTNonASCIIUTF8.txt"), mismatchOf("content is not HTML (no '<' in the first KiB)")},
		{"docx.doc", docx, mismatchOf("content is not a DOC (no OLE2 signature; it looks like a DOCX)")},
		{"xls.csv", xls, mismatchOf("content is not text (binary data: NUL bytes; it looks like an XLS)")},
		{"encrypted-ooxml.odt", encrypted,
			mismatchOf("content is not an ODT (no ODF zip signature; it looks like a password-protected OOXML file)")},
		{"encrypted.doc", encrypted, officePassword()},
		{"encrypted.xlsx", encrypted, officePassword()},
		{"ppt-encrypted-marker.ppt", pptMarked, officePassword()},

		// Accepted variants.
		{"upper.DOCX", docx, office},
		{"template.dotx", docx, office},
		{"macro.docm", docx, office},
		{"rtf.doc", corpus(t, "test.rtf"), office},
		{"utf16.txt", utf16le, office},
		{"latin1.txt", []byte("caf\xe9 cr\xe8me br\xfbl\xe9e\r\n"), office},
		{"bom.html", []byte("\xEF\xBB\xBF<!doctype html><p>hi"), office},
		{"flat.fodt", []byte(flat), office},
		{"junk-prefix.pdf", append([]byte("garbage\r\n"), pdfFile...), pdf},
		{"encrypt-metadata.pdf", pdfEnc("/EncryptMetadata false"), pdf},
		{"tiff-be.tif", []byte("MM\x00*\x00\x00\x00\x08"), image},
		{"webp.webp", []byte("RIFF\x10\x00\x00\x00WEBPVP8 "), image},
		{"gif87.gif", []byte("GIF87a\x01\x00\x01\x00"), image},
		{"bmp.bmp", bmp, image},

		// Crafted failures.
		{"controls.txt", []byte("a\x01b\x02c\x03d\x04"), mismatchOf("content is not text (binary data: control characters)")},
		{"flat.fods", []byte(flat), mismatchOf(`content is not an FODS (its mimetype is "application/vnd.oasis.opendocument.text")`)},
		{"text.fodt", []byte("hello"), mismatchOf("content is not an FODT (no office:document element in the first 8 KiB)")},
		{"encrypt-ref.pdf", pdfEnc("/Encrypt 5 0 R"), want{sentinel: ErrPassword, reason: "password-protected PDF"}},
		{"encrypt-inline.pdf", pdfEnc("/Encrypt<</Filter/Standard>>"), want{sentinel: ErrPassword, reason: "password-protected PDF"}},
		{"encrypt-straddle.pdf", straddle, want{sentinel: ErrPassword, reason: "password-protected PDF"}},
		{"text.bmp", []byte("BM is not a bitmap, just text"),
			mismatchOf("content is not a BMP (no BMP signature; it looks like plain text)")},
		{"plain-zip.docx", zipOf(t, "a.txt", "x"),
			mismatchOf("content is not a DOCX (a zip archive without [Content_Types].xml or mimetype)")},
		{"no-word.docx", zipOf(t, "[Content_Types].xml", "<Types/>", "foo/bar.xml", "<x/>"),
			mismatchOf("content is not a DOCX (no word/ part in the OOXML package)")},
		{"plain-zip.odt", zipOf(t, "a.txt", "x"), mismatchOf("content is not an ODT (a zip archive without a mimetype entry)")},
		{"encrypted.odt", zipOf(t, "mimetype", odfText, "META-INF/manifest.xml",
			`<manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry>`),
			officePassword()},
		{"bad-ole.doc", append([]byte(oleMagic), make([]byte, 600)...), mismatchOf("truncated or corrupt DOC (OLE2 unreadable)")},
		{"bad-ole.docx", append([]byte(oleMagic), make([]byte, 600)...), mismatchOf("content is not a DOCX (a corrupt OLE2 file)")},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			check(t, path, tt.want)
		})
	}
}

// TestIsText pins the text rule's threshold: 1 control byte in 100 passes.
func TestIsText(t *testing.T) {
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"ascii", "hello, world\n", true},
		{"one control in 100", "\x01" + strings.Repeat("a", 99), true},
		{"two controls in 100", "\x01\x02" + strings.Repeat("a", 98), false},
		{"escape sequences", "\x1b[1mbold\x1b[0m\f\v\x1a", true},
		{"nul", "abc\x00def", false},
		{"utf16 with nul units", "\xFF\xFEa\x00\x00\x00", false},
		{"utf16be", "\xFE\xFF\x00a\x00b", true},
	}
	for _, tt := range tests {
		if got, _ := isText([]byte(tt.data)); got != tt.want {
			t.Errorf("%s: isText(%q) = %v, want %v", tt.name, tt.data, got, tt.want)
		}
	}
}
