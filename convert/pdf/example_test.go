package pdf_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"calq/convert/pdf"
)

func ExampleInspect() {
	info, err := pdf.Inspect("../../testdata/convert/pages_3.pdf", "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Pages, "pages, encrypted:", info.Encrypted)
	// Output: 3 pages, encrypted: false
}

func ExampleApply() {
	dir, err := os.MkdirTemp("", "calq-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "report.pdf")

	perms, _ := pdf.ParsePermissions("print")
	err = pdf.Apply(context.Background(), "../../testdata/convert/pages_3.pdf", out, pdf.Post{
		Watermark: &pdf.Watermark{Text: "DRAFT"},
		Metadata:  &pdf.Metadata{Title: "Quarterly report"},
		Encrypt:   &pdf.Encryption{UserPassword: "reader", OwnerPassword: "owner", Permissions: perms},
	})
	if err != nil {
		log.Fatal(err)
	}

	_, err = pdf.Inspect(out, "")
	fmt.Println("password needed:", errors.Is(err, pdf.ErrEncrypted))
	info, err := pdf.Inspect(out, "reader")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q, AES-256: %v, permissions: %v\n", info.Title, info.AES256, info.Permissions)
	// Output:
	// password needed: true
	// "Quarterly report", AES-256: true, permissions: print
}
