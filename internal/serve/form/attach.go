package form

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"calq/convert/pdf"
)

// embeds reads the files uploaded as embeds, named as the client named
// them, with embedsMetadata: a JSON object giving, by file name,
// {"mimeType": ..., "relationship": ...}. A key naming no embedded file,
// or another key inside, is refused: it would be silently lost.
func (f *Form) embeds() []pdf.Attachment {
	var as []pdf.Attachment
	for _, file := range f.Files {
		if file.Field == "embeds" {
			as = append(as, pdf.Attachment{Path: file.Path, Name: file.Name})
		}
	}
	var meta map[string]map[string]string
	if !f.jsonValue("embedsMetadata", f.Value("embedsMetadata"), `a JSON object of {"mimeType", "relationship"} by file name`, &meta) {
		return as
	}
	for name, m := range meta {
		i := slices.IndexFunc(as, func(a pdf.Attachment) bool { return a.Name == name })
		if i < 0 {
			f.fail(badRequest("form field 'embedsMetadata' is invalid (%s names no file uploaded as embeds)", quote(name)))
			return nil
		}
		for k, v := range m {
			switch k {
			case "mimeType":
				as[i].MimeType = v
			case "relationship":
				as[i].Relationship = v
			default:
				f.fail(badRequest("form field 'embedsMetadata' is invalid (%s: got key %s, want 'mimeType' or 'relationship')", quote(name), quote(k)))
				return nil
			}
		}
	}
	return as
}

// bookmarksWant is what the bookmarks field holds.
const bookmarksWant = `a JSON list of {"title", "page", "children"}, or an object of such lists by file name`

// bookmarks reads the bookmarks field: a JSON list of {"title", "page",
// "children"} for every PDF, or an object of such lists by file name.
func (f *Form) bookmarks(required bool) (all []pdf.Bookmark, byFile map[string][]pdf.Bookmark) {
	if required {
		f.Require("bookmarks")
	}
	raw := strings.TrimSpace(f.Value("bookmarks"))
	if raw == "" {
		return nil, nil
	}
	err := jsonSyntax("bookmarks", raw)
	if err != nil {
		f.invalidBy("bookmarks", err, bookmarksWant)
		return nil, nil
	}
	if strings.HasPrefix(raw, "{") {
		err = strictJSON(raw, &byFile)
	} else {
		err = strictJSON(raw, &all)
	}
	if err != nil {
		f.fail(badRequest("form field 'bookmarks' is invalid (got %s, want %s: %v)", quote(f.Value("bookmarks")), bookmarksWant, err))
		return nil, nil
	}
	return all, byFile
}

var errTrailing = errors.New("text after the JSON value")

// strictJSON decodes one JSON value into v, refusing unknown keys.
func strictJSON(raw string, v any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errTrailing
	}
	return nil
}

// facturX reads facturxXml (a file), facturxConformanceLevel,
// facturxDocumentType and facturxVersion; the first two are required.
func (f *Form) facturX() *pdf.FacturX {
	x := &pdf.FacturX{Level: f.Value("facturxConformanceLevel"), DocumentType: f.Value("facturxDocumentType"),
		Version: f.Value("facturxVersion")}
	for _, file := range f.Files {
		if file.Field == "facturxXml" {
			if x.XML != "" {
				f.fail(badRequest("form file field 'facturxXml' is repeated: a Factur-X invoice has one XML"))
				return nil
			}
			x.XML = file.Path
		}
	}
	if x.XML == "" || x.Level == "" {
		f.fail(badRequest("'facturxConformanceLevel' and 'facturxXml' are both required"))
		return nil
	}
	return x
}
