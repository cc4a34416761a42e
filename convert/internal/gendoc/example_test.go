package gendoc_test

import (
	"archive/zip"
	"bytes"
	"fmt"

	"calq/convert/internal/gendoc"
)

func ExampleDOCX() {
	var buf bytes.Buffer
	if err := gendoc.DOCX(&buf, "Quarterly report", 12); err != nil {
		panic(err)
	}
	zr, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	for _, f := range zr.File {
		fmt.Println(f.Name)
	}
	// Output:
	// [Content_Types].xml
	// _rels/.rels
	// docProps/core.xml
	// word/_rels/document.xml.rels
	// word/styles.xml
	// word/document.xml
}
