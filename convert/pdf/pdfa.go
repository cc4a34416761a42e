package pdf

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// Conformance is a PDF's PDF/A identification, from its XMP metadata.
type Conformance struct {
	Part  int    // 1, 2, 3 or 4; 0 when the PDF does not claim PDF/A
	Level string // "A", "B" or "U" (upper case); "" when none is given
	UA    int    // the PDF/UA part (pdfuaid:part) claimed; 0 none
}

// The XMP namespaces of the PDF/A and PDF/UA identification schemas.
const (
	pdfaNS  = "http://www.aiim.org/pdfa/ns/id/"
	pdfuaNS = "http://www.aiim.org/pdfua/ns/id/"
)

// PDFA reads the PDF/A identification of the PDF at path: pdfaid:part and
// pdfaid:conformance in the XMP stream of the document catalog's
// /Metadata, decoded whatever its filter, in the attribute or the element
// form, whatever prefix the namespace has. A PDF without metadata is part
// 0. This is what a PDF claims, not a validation of its content.
func PDFA(ctx context.Context, path string) (Conformance, error) {
	if err := ctx.Err(); err != nil {
		return Conformance{}, err
	}
	xmp, err := metadataStream(path)
	if err != nil {
		return Conformance{}, fmt.Errorf("read the PDF/A identification of %s: %w", path, err)
	}
	return parseXMP(xmp)
}

// metadataStream returns the catalog's decoded /Metadata, nil for none.
func metadataStream(path string) ([]byte, error) {
	ctx, err := readContext(path, "", model.VALIDATE)
	if err != nil {
		return nil, err
	}
	var content []byte
	err = protect("read metadata", func() error {
		cat, err := ctx.XRefTable.Catalog()
		if err != nil {
			return err
		}
		obj, ok := cat.Find("Metadata")
		if !ok || obj == nil {
			return nil
		}
		sd, _, err := ctx.XRefTable.DereferenceStreamDict(obj)
		if err != nil || sd == nil {
			return err
		}
		if err := sd.Decode(); err != nil {
			return err
		}
		content = sd.Content
		return nil
	})
	return content, err
}

// parseXMP finds pdfaid:part, pdfaid:conformance and pdfuaid:part in an
// XMP packet.
func parseXMP(xmp []byte) (Conformance, error) {
	var c Conformance
	d := xml.NewDecoder(bytes.NewReader(xmp))
	d.Strict = false
	var field xml.Name // the identification element being read
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c, fmt.Errorf("XMP metadata: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			for _, a := range t.Attr {
				if err := c.set(a.Name, a.Value); err != nil {
					return c, err
				}
			}
			field = t.Name
		case xml.CharData:
			if strings.TrimSpace(string(t)) != "" {
				if err := c.set(field, string(t)); err != nil {
					return c, err
				}
			}
		case xml.EndElement:
			field = xml.Name{}
		}
	}
	return c, nil
}

// set records the value of an identification field; others are ignored.
func (c *Conformance) set(field xml.Name, value string) error {
	value = strings.TrimSpace(value)
	if field.Space == pdfuaNS && field.Local == "part" {
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > 2 {
			return fmt.Errorf("XMP metadata: pdfuaid:part %q is not 1 or 2", value)
		}
		c.UA = n
		return nil
	}
	if field.Space != pdfaNS {
		return nil
	}
	switch field.Local {
	case "part":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > 4 {
			return fmt.Errorf("XMP metadata: pdfaid:part %q is not 1 to 4", value)
		}
		c.Part = n
	case "conformance":
		c.Level = strings.ToUpper(value)
	}
	return nil
}
