package gendoc

import (
	"io"
	"strconv"
	"strings"
)

var itoa = strconv.Itoa

// WriteODT writes d as an OpenDocument text package: the mimetype entry
// (first and uncompressed, as ODF requires), the manifest, content, styles
// and metadata (which carry the title).
func (d Doc) WriteODT(w io.Writer) error {
	return writeZip(w, []part{
		{name: "mimetype", body: "application/vnd.oasis.opendocument.text", store: true},
		{name: "META-INF/manifest.xml", body: odtManifest},
		{name: "meta.xml", body: odtMeta(d.Title)},
		{name: "styles.xml", body: odtStyles},
		{name: "content.xml", body: d.odtContent()},
	})
}

const odtManifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">
<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text" manifest:version="1.3"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>
<manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/>
</manifest:manifest>`

const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
	`xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ` +
	`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
	`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
	`xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ` +
	`xmlns:dc="http://purl.org/dc/elements/1.1/" ` +
	`xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" ` +
	`xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.3"`

func odtMeta(title string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<office:document-meta ` + odfNS + `><office:meta>` +
		`<dc:title>` + esc(title) + `</dc:title><meta:initial-creator>calq gendoc</meta:initial-creator>` +
		`</office:meta></office:document-meta>`
}

// The same page and text setup as the DOCX: A4, 2.5 cm margins, 12 pt serif.
const odtStyles = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles ` + odfNS + `>
<office:font-face-decls><style:font-face style:name="Times New Roman" svg:font-family="'Times New Roman'" style:font-family-generic="roman"/></office:font-face-decls>
<office:styles>
<style:default-style style:family="paragraph"><style:paragraph-properties fo:margin-bottom="0.212cm" fo:text-align="justify"/><style:text-properties style:font-name="Times New Roman" fo:font-size="12pt" fo:language="en" fo:country="US"/></style:default-style>
<style:style style:name="Standard" style:family="paragraph" style:class="text"/>
<style:style style:name="Title" style:family="paragraph" style:parent-style-name="Standard" style:class="chapter"><style:paragraph-properties fo:margin-bottom="0.423cm" fo:text-align="start"/><style:text-properties fo:font-size="20pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Standard" style:default-outline-level="1" style:class="text"><style:paragraph-properties fo:margin-top="0.423cm" fo:margin-bottom="0.212cm" fo:keep-with-next="always" fo:text-align="start"/><style:text-properties fo:font-size="15pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Table_20_Contents" style:display-name="Table Contents" style:family="paragraph" style:parent-style-name="Standard"><style:paragraph-properties fo:margin-bottom="0cm" fo:text-align="start"/></style:style>
<style:style style:name="Table_20_Heading" style:display-name="Table Heading" style:family="paragraph" style:parent-style-name="Table_20_Contents"><style:text-properties fo:font-weight="bold"/></style:style>
</office:styles>
<office:automatic-styles><style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="2.5cm" fo:margin-bottom="2.5cm" fo:margin-left="2.5cm" fo:margin-right="2.5cm"/></style:page-layout></office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>
</office:document-styles>`

const odtAutoStyles = `<office:automatic-styles>
<style:style style:name="Tbl" style:family="table"><style:table-properties style:width="16cm" table:align="margins" table:border-model="collapsing"/></style:style>
<style:style style:name="Tbl.C" style:family="table-cell"><style:table-cell-properties fo:padding="0.1cm" fo:border="0.5pt solid #000000"/></style:style>
</office:automatic-styles>`

func (d Doc) odtContent() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<office:document-content " + odfNS + ">\n" + odtAutoStyles + "\n<office:body><office:text>\n")
	tables := 0
	for _, bl := range d.blocks() {
		switch bl.kind {
		case "title":
			b.WriteString(`<text:p text:style-name="Title">` + esc(bl.text) + "</text:p>\n")
		case "heading":
			b.WriteString(`<text:h text:style-name="Heading_20_1" text:outline-level="1">` + esc(bl.text) + "</text:h>\n")
		case "para":
			b.WriteString(`<text:p text:style-name="Standard">` + esc(bl.text) + "</text:p>\n")
		case "table":
			tables++
			odtTable(&b, tables, bl.rows)
		}
	}
	b.WriteString("</office:text></office:body></office:document-content>\n")
	return b.String()
}

func odtTable(b *strings.Builder, n int, rows [][]string) {
	b.WriteString(`<table:table table:name="Table` + itoa(n) + `" table:style-name="Tbl">`)
	b.WriteString(`<table:table-column table:number-columns-repeated="` + itoa(len(rows[0])) + `"/>` + "\n")
	for i, row := range rows {
		if i == 0 {
			b.WriteString("<table:table-header-rows>")
		}
		b.WriteString("<table:table-row>")
		style := "Table_20_Contents"
		if i == 0 {
			style = "Table_20_Heading"
		}
		for _, cell := range row {
			b.WriteString(`<table:table-cell table:style-name="Tbl.C" office:value-type="string"><text:p text:style-name="` + style + `">` + esc(cell) + "</text:p></table:table-cell>")
		}
		b.WriteString("</table:table-row>")
		if i == 0 {
			b.WriteString("</table:table-header-rows>")
		}
		b.WriteString("\n")
	}
	b.WriteString("</table:table>\n")
}
