package gendoc

import (
	"encoding/xml"
	"io"
	"strings"
)

// WriteDOCX writes d as an OOXML word-processing package: content types,
// package and document relationships, the document, its styles and the core
// properties (which carry the title).
func (d Doc) WriteDOCX(w io.Writer) error {
	return writeZip(w, []part{
		{name: "[Content_Types].xml", body: docxContentTypes},
		{name: "_rels/.rels", body: docxRels},
		{name: "docProps/core.xml", body: docxCore(d.Title)},
		{name: "word/_rels/document.xml.rels", body: docxDocRels},
		{name: "word/styles.xml", body: docxStyles},
		{name: "word/document.xml", body: d.docxDocument()},
	})
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

const docxContentTypes = xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>
</Types>`

const docxRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>
</Relationships>`

const docxDocRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
</Relationships>`

func docxCore(title string) string {
	return xmlHeader + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
		`xmlns:dc="http://purl.org/dc/elements/1.1/">` +
		`<dc:title>` + esc(title) + `</dc:title><dc:creator>calq gendoc</dc:creator></cp:coreProperties>`
}

const docxStyles = xmlHeader + `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:docDefaults>
<w:rPrDefault><w:rPr><w:rFonts w:ascii="Times New Roman" w:hAnsi="Times New Roman" w:eastAsia="Times New Roman" w:cs="Times New Roman"/><w:sz w:val="24"/><w:szCs w:val="24"/><w:lang w:val="en-US"/></w:rPr></w:rPrDefault>
<w:pPrDefault><w:pPr><w:spacing w:after="120" w:line="240" w:lineRule="auto"/><w:jc w:val="both"/></w:pPr></w:pPrDefault>
</w:docDefaults>
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:pPr><w:jc w:val="left"/><w:spacing w:after="240"/></w:pPr><w:rPr><w:b/><w:sz w:val="40"/><w:szCs w:val="40"/></w:rPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:keepNext/><w:jc w:val="left"/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="30"/><w:szCs w:val="30"/></w:rPr></w:style>
<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:tblPr><w:tblCellMar><w:left w:w="108" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>
</w:styles>`

// A4 with 2.5 cm (1418 twip) margins.
const docxSection = `<w:sectPr><w:pgSz w:w="11906" w:h="16838"/>` +
	`<w:pgMar w:top="1418" w:right="1418" w:bottom="1418" w:left="1418" w:header="709" w:footer="709" w:gutter="0"/></w:sectPr>`

func (d Doc) docxDocument() string {
	var b strings.Builder
	b.WriteString(xmlHeader + `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + "\n")
	for _, bl := range d.blocks() {
		switch bl.kind {
		case "title":
			b.WriteString(`<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t xml:space="preserve">` + esc(bl.text) + "</w:t></w:r></w:p>\n")
		case "heading":
			b.WriteString(`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t xml:space="preserve">` + esc(bl.text) + "</w:t></w:r></w:p>\n")
		case "para":
			b.WriteString(`<w:p><w:r><w:t xml:space="preserve">` + esc(bl.text) + "</w:t></w:r></w:p>\n")
		case "table":
			docxTable(&b, bl.rows)
		}
	}
	b.WriteString(docxSection + "</w:body></w:document>\n")
	return b.String()
}

// Column widths in twips; they add up to the 9070-twip text width.
var docxCols = []int{900, 3370, 1500, 1600, 1700}

func docxTable(b *strings.Builder, rows [][]string) {
	border := func(side string) string {
		return `<w:` + side + ` w:val="single" w:sz="4" w:space="0" w:color="000000"/>`
	}
	b.WriteString(`<w:tbl><w:tblPr><w:tblW w:w="5000" w:type="pct"/><w:tblBorders>`)
	for _, s := range []string{"top", "left", "bottom", "right", "insideH", "insideV"} {
		b.WriteString(border(s))
	}
	b.WriteString(`</w:tblBorders><w:tblLayout w:type="fixed"/></w:tblPr><w:tblGrid>`)
	for _, c := range docxCols {
		b.WriteString(`<w:gridCol w:w="` + itoa(c) + `"/>`)
	}
	b.WriteString("</w:tblGrid>\n")
	for i, row := range rows {
		b.WriteString("<w:tr>")
		if i == 0 {
			b.WriteString(`<w:trPr><w:tblHeader/></w:trPr>`)
		}
		for j, cell := range row {
			b.WriteString(`<w:tc><w:tcPr><w:tcW w:w="` + itoa(docxCols[j]) + `" w:type="dxa"/></w:tcPr>`)
			b.WriteString(`<w:p><w:pPr><w:spacing w:after="0"/><w:jc w:val="left"/></w:pPr><w:r>`)
			if i == 0 {
				b.WriteString("<w:rPr><w:b/></w:rPr>")
			}
			b.WriteString(`<w:t xml:space="preserve">` + esc(cell) + "</w:t></w:r></w:p></w:tc>")
		}
		b.WriteString("</w:tr>\n")
	}
	// Word requires a paragraph between two adjacent tables; one after each is simplest.
	b.WriteString("</w:tbl><w:p/>\n")
}
