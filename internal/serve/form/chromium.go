package form

import (
	"errors"

	"calq/convert/chromium"
)

// ChromiumOptions are the fields of the /forms/chromium routes: how the
// page loads, how it is printed (convert routes) or captured (screenshot
// routes), and, for convert routes, the PDF fields the LibreOffice route
// also takes.
type ChromiumOptions struct {
	// URL is the url field of the url routes.
	URL  string
	Load chromium.Load
	PDF  chromium.PDF        // convert routes
	Shot chromium.Screenshot // screenshot routes
	// PDFA and PDFUA, Merge (never: one page), Post and MailTo are as in
	// LibreOfficeOptions.
	PDFA   int
	PDFUA  bool
	MailTo []string
	Post
}

// Chromium reads the fields of route ("chromium/convert/html", ...).
// Unknown fields are ignored; a bad value is a 400 *Error in Gotenberg's
// words, naming the field.
func Chromium(route string, f *Form) (ChromiumOptions, error) {
	return ChromiumOptions{}, errors.New("form: chromium fields not yet read")
}
