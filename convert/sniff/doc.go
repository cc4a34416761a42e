// Package sniff decides, before any converter runs, whether a file is what its
// extension claims and how calq should convert it.
//
// Entry points: Detect (one file: its extension picks the expected format, its
// first bytes and container structure must agree), DetectFile (Detect, then
// the content decides), Supported (the list of extensions) and TellsPassword
// (whether Detect would see a password on a file named so). Detect reads the first 8 KiB, the central directory of zip
// containers plus their tiny mimetype and manifest entries, the directory and
// a few bytes of OLE2 containers and, for PDFs, the whole file once in 1 MiB
// chunks; it never parses document content. It is safe for concurrent use.
//
// Why: LibreOffice converts almost anything without complaint. Random bytes
// named .docx become pages of mojibake, an empty file a blank page, and an
// encrypted PDF a placeholder page, all with exit status 0. So calq rejects
// those files here, with a reason a person can act on.
//
// The rules, by extension (matched case-insensitively):
//
//   - every format: an empty file is ErrEmpty.
//   - docx docm dotx dotm, xlsx xlsm xltx xltm, pptx pptm potx potm ppsx ppsm:
//     a readable zip with [Content_Types].xml and an entry under word/, xl/ or
//     ppt/ respectively. An OLE2 file holding an EncryptedPackage stream is an
//     encrypted (or IRM-protected) OOXML file: ErrPassword.
//   - odt ott, ods ots, odp otp, odg otg: a readable zip whose mimetype entry is
//     the family's ODF media type (templates allowed); a manifest listing
//     encryption-data means ErrPassword.
//   - fodt fods fodp fodg: text (rule below) with an office:document element and
//     the family's office:mimetype in the first 8 KiB.
//   - doc dot, xls xlt, ppt pot pps: an OLE2 file (D0 CF 11 E0 A1 B1 1A E1) with a
//     WordDocument, Workbook/Book or "PowerPoint Document" stream. Encryption:
//     EncryptedPackage, the Word FIB's fEncrypted bit, an Excel FILEPASS record,
//     PowerPoint's encrypted CurrentUserAtom token. A .doc may also be RTF.
//   - rtf: {\rtf after an optional UTF-8 BOM and white space.
//   - txt csv: text: no NUL byte in the first 8 KiB (unless it
//     starts with a UTF-16 BOM) and at most 1% control bytes (C0 other than
//     tab, LF, VT, FF, CR, SUB and ESC; DEL). Any 8-bit encoding passes.
//   - html htm: text, and a '<' in the first KiB.
//   - pdf: %PDF- in the first 1024 bytes; an /Encrypt trailer entry anywhere is
//     ErrPassword (this includes PDFs that open without a password but carry
//     permission restrictions).
//   - png jpg jpeg tif tiff webp gif bmp: the format's magic bytes (TIFF II*\0 or
//     MM\0*, WebP RIFF....WEBP, BMP "BM" plus a known DIB header size).
//   - the other formats LibreOffice imports (other.go), which LibreOffice
//     converts, pictures too: a signature (WordPerfect, EMF, WMF, EPS,
//     Netpbm, Photoshop, ...), a marker in the first KiB of a text (SVG,
//     XML, XHTML, DIF, SYLK, XBM, XPM, DXF), a container (Sun XML's
//     mimetype, Visio's OOXML folder, an OLE2 file, a zip neither OOXML nor
//     ODF for iWork), a header's sanity (TARGA, PCX, dBase), or, for the
//     few without a signature (MacWrite, OS/2 metafile, PICT, Photo CD,
//     Lotus Word Pro), binary data of no format calq knows by content.
//   - html htm with an XML declaration: converted as .xhtml, which
//     LibreOffice is told to read as HTML into Writer.
//
// Not detectable here: documents that are well-formed but make LibreOffice
// fail, crash or hang (corpus ofz5909-1.html and ofz8255-1.html), damage inside
// a zip entry or a PDF body, and tiny random files that pass the text rule.
package sniff
