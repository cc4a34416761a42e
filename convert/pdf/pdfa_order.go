package pdf

import (
	"mime"
	"path/filepath"
	"strings"
)

// A PDF/A asked for with other changes is made in this order, so that
// the file is what it claims: the changes of the pages' content first
// (watermarks, stamps, rotation, flattening, images), then LibreOffice's
// PDF/A export of that PDF, then only what PDF/A-2 and PDF/A-3 allow to
// be added to a file (bookmarks, attachments, metadata, with the XMP
// made to repeat the information dictionary, and Factur-X's invoice).
// calq serve and calq convert both follow it.

// AroundPDFA splits p into the steps that go before the PDF/A export and
// those that go after it. Factur-X is left out of both: it is added
// alone, last. Encryption is in after, for the caller to refuse: PDF/A
// forbids it.
func AroundPDFA(p Post) (before, after Post) {
	before = Post{Watermark: p.Watermark, Stamp: p.Stamp, Watermarks: p.Watermarks, Stamps: p.Stamps,
		Rotate: p.Rotate, Flatten: p.Flatten, Images: p.Images, Optimize: p.Optimize}
	after = Post{Bookmarks: p.Bookmarks, Embeds: p.Embeds, Metadata: p.Metadata, CustomMetadata: p.CustomMetadata,
		Encrypt: p.Encrypt}
	return before, after
}

// Marked says whether p puts a watermark or a stamp on the pages: their
// transparency, which PDF/A-1 forbids, makes LibreOffice's PDF/A-1
// export turn the pages they cover into pictures, their text lost.
func Marked(p Post) bool {
	return p.Watermark != nil || p.Stamp != nil || len(p.Watermarks) > 0 || len(p.Stamps) > 0
}

// PDFAEmbeds gives each attachment of a PDF/A-3 what PDF/A-3 asks of an
// associated file: a relationship (Unspecified when none is given) and a
// MIME type (by its name's extension, else application/octet-stream).
func PDFAEmbeds(embeds []Attachment) []Attachment {
	out := make([]Attachment, len(embeds))
	for i, a := range embeds {
		if a.Relationship == "" {
			a.Relationship = "Unspecified"
		}
		if a.MimeType == "" {
			a.MimeType, _, _ = strings.Cut(mime.TypeByExtension(strings.ToLower(filepath.Ext(a.Name))), ";")
			if a.MimeType == "" {
				a.MimeType = "application/octet-stream"
			}
		}
		out[i] = a
	}
	return out
}
