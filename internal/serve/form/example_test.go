package form_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"os"

	"calq/internal/serve/form"
)

func Example() {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("files", "../Q3 report.DOCX")
	fw.Write([]byte("..."))
	w.WriteField("quality", "80")
	w.WriteField("pdfa", "PDF/A-2b")
	w.Close()
	r := httptest.NewRequest("POST", "/forms/libreoffice/convert", &body)
	r.Header.Set("Content-Type", w.FormDataContentType())

	dir, _ := os.MkdirTemp("", "calq-form")
	defer os.RemoveAll(dir)
	f, err := form.Read(r, dir, form.Limits{MaxBody: 32 << 20})
	if err != nil {
		fmt.Println(err) // an *form.Error carries the HTTP status
		return
	}
	defer f.Remove()
	o, err := form.LibreOffice(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := f.Inputs()[0]
	fmt.Printf("%s stored as %s\n", in.Name, in.Path[len(dir)+1:])
	fmt.Printf("quality %d, PDF/A-%d\n", o.Quality, o.PDFA)
	// Output:
	// Q3 report.DOCX stored as 0001.docx
	// quality 80, PDF/A-2
}
