package zipfile_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"time"

	"calq/internal/zipfile"
)

func ExampleWriter_Add() {
	var buf bytes.Buffer
	w := zipfile.NewWriter(&buf)
	mod := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	if err := w.Add("Café & Crème #1.pdf", mod, strings.NewReader("%PDF-1.7")); err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}
	zr, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	f := zr.File[0]
	fmt.Println(f.Name, f.Modified.UTC().Format(time.DateTime), f.Mode(), f.Flags&0x800 != 0)
	// Output: Café & Crème #1.pdf 2024-05-06 07:08:10 -rw-r--r-- true
}
