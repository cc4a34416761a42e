package form

import (
	"net/http"
	"strings"
)

// EngineOptions are the fields of one /forms/pdfengines/* route. Route is
// the route's name without that prefix ("merge", "metadata/write", ...).
// The single-purpose routes set the one step they do: flatten sets
// Post.Flatten, metadata/write Post.Metadata, encrypt Post.Encrypt,
// watermark Post.Watermark, stamp Post.Stamp, rotate Post.Rotate. merge and
// split read every post-processing step, as Gotenberg does; convert reads
// PDFA and PDFUA; metadata/read and optimize take no field.
type EngineOptions struct {
	Route string
	PDFA  int // 1, 2 or 3 for PDF/A-1b, -2b, -3b; 0 none
	PDFUA bool
	Post
}

// EngineRoutes are the /forms/pdfengines/* routes PDFEngines reads.
var EngineRoutes = []string{
	"merge", "split", "flatten", "convert", "metadata/read", "metadata/write",
	"encrypt", "watermark", "stamp", "rotate", "optimize",
}

// PDFEngines reads the fields of /forms/pdfengines/{route} (route with or
// without that prefix). Unknown fields are ignored; a bad or missing value,
// or a feature calq cannot honour, is a 400 *Error naming the field; a
// route calq does not offer (embed, bookmarks/*, factur-x) is a 404 *Error.
func PDFEngines(route string, f *Form) (EngineOptions, error) {
	route = strings.Trim(strings.TrimPrefix(route, "/forms/pdfengines/"), "/")
	o := EngineOptions{Route: route}
	switch route {
	case "merge", "split":
		o.PDFA, o.PDFUA = f.pdfFormats(false)
		o.Post = f.post(o.PDFA)
		if route == "split" {
			o.Split = f.split(true)
		} else {
			f.unsupported("bookmarks")
			f.onlyBool("autoIndexBookmarks", false)
			f.onlyBool("titleBookmarks", false)
		}
	case "flatten", "metadata/read":
		o.Flatten = route == "flatten"
	case "convert":
		o.PDFA, o.PDFUA = f.pdfFormats(false)
		if f.Err() == nil && o.PDFA == 0 && !o.PDFUA {
			f.fail(badRequest("either 'pdfa' or 'pdfua' form fields must be provided"))
		}
	case "metadata/write":
		f.Require("metadata")
		o.Metadata = f.JSONObject("metadata")
	case "encrypt":
		o.Encrypt = f.encryption()
		if f.Err() == nil && o.Encrypt == nil {
			f.fail(badRequest("a 'userPassword' or 'ownerPassword' is required"))
		}
	case "watermark":
		o.Watermark = f.mark("watermark", true)
	case "stamp":
		o.Stamp = f.mark("stamp", true)
	case "rotate":
		o.Rotate = f.rotation(true)
	case "optimize":
		// Gotenberg re-encodes images at imageQuality; calq's optimisation
		// rewrites the structure and leaves images as they are.
		f.unsupported("imageQuality")
	default:
		return o, &Error{Status: http.StatusNotFound, Msg: "calq serve does not offer the route /forms/pdfengines/" + strings.Trim(quote(route), "'") + "."}
	}
	return o, f.Err()
}
