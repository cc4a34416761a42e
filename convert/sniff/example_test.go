package sniff_test

import (
	"errors"
	"fmt"

	"calq/convert/sniff"
)

func ExampleDetect() {
	for _, path := range []string{
		"../../testdata/convert/sample_3.docx",
		"../../testdata/convert/testPNG.png",
		"../../testdata/convert/random-bytes.docx",
		"../../testdata/convert/testPassword4Spaces.pdf",
	} {
		kind, err := sniff.Detect(path)
		switch {
		case errors.Is(err, sniff.ErrPassword):
			fmt.Println("skip, needs a password:", err)
		case err != nil:
			fmt.Println("reject:", err)
		default:
			fmt.Println(kind)
		}
	}
	// Output:
	// office
	// image
	// reject: ../../testdata/convert/random-bytes.docx: content is not a DOCX (no OOXML zip signature)
	// skip, needs a password: ../../testdata/convert/testPassword4Spaces.pdf: password-protected PDF
}
