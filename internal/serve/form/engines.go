package form

import (
	"net/http"
	"strings"
)

// EngineOptions are the fields of one /forms/pdfengines/* route. Route is
// the route's name without that prefix ("merge", "metadata/write", ...).
// The single-purpose routes set the one step they do: flatten sets
// Post.Flatten, metadata/write Post.Metadata, encrypt Post.Encrypt,
// watermark Post.Watermark (and Watermarks), stamp Post.Stamp (and
// Stamps), rotate Post.Rotate, bookmarks/write Post.Bookmarks or
// FileBookmarks, embed Post.Embeds. merge and split read every
// post-processing step, as Gotenberg does (merge also bookmarks for the
// merged PDF, or by input file, autoIndexBookmarks and titleBookmarks);
// convert reads PDFA and PDFUA;
// optimize reads imageQuality and maxImageResolution; metadata/read
// and bookmarks/read take no field.
type EngineOptions struct {
	Route string
	PDFA  int // 1, 2 or 3 for PDF/A-1b, -2b, -3b; 0 none
	PDFUA bool
	Post
	// AutoIndexBookmarks (merge) keeps each input's own outline in the
	// merged PDF, where Post.FileBookmarks gives the input none;
	// TitleBookmarks (merge) puts each input's outline under an entry
	// titled after the input.
	AutoIndexBookmarks, TitleBookmarks bool
}

// EngineRoutes are the /forms/pdfengines/* routes PDFEngines reads.
var EngineRoutes = []string{
	"merge", "split", "flatten", "convert", "metadata/read", "metadata/write",
	"encrypt", "watermark", "stamp", "rotate", "optimize", "bookmarks/read", "bookmarks/write", "embed", "factur-x",
}

// PDFEngines reads the fields of /forms/pdfengines/{route} (route with or
// without that prefix). Unknown fields are ignored; a bad or missing value,
// or a feature calq cannot honour, is a 400 *Error naming the field; a
// route calq does not offer is a 404 *Error.
func PDFEngines(route string, f *Form) (EngineOptions, error) {
	route = strings.Trim(strings.TrimPrefix(route, "/forms/pdfengines/"), "/")
	o := EngineOptions{Route: route}
	switch route {
	case "merge", "split":
		if route == "split" {
			o.Split = f.split(true)
		}
		o.PDFA, o.PDFUA = f.pdfFormats(false)
		split := o.Split
		o.Post = f.post(o.PDFA)
		o.Split = split
		if route == "merge" {
			o.Bookmarks, o.FileBookmarks = f.bookmarks(false)
		}
		f.inputsRead()
		o.Flatten = f.Bool("flatten")
		if route == "merge" {
			o.AutoIndexBookmarks, o.TitleBookmarks = f.Bool("autoIndexBookmarks"), f.Bool("titleBookmarks")
		}
	case "bookmarks/write":
		o.Bookmarks, o.FileBookmarks = f.bookmarks(true)
	case "embed":
		o.Embeds = f.embeds()
		f.unsupported("facturxConformanceLevel")
		f.unsupportedFiles("facturxXml")
	case "factur-x":
		o.FacturX = f.facturX()
	case "flatten", "metadata/read", "bookmarks/read":
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
		o.Watermark, o.Watermarks = first(f.marks("watermark", true))
	case "stamp":
		o.Stamp, o.Stamps = first(f.marks("stamp", true))
	case "rotate":
		o.Rotate = f.rotation(true)
	case "optimize":
		o.Optimize, o.Images = true, f.images()
	default:
		return o, &Error{Status: http.StatusNotFound, Msg: "calq serve does not offer the route /forms/pdfengines/" + strings.Trim(quote(route), "'") + "."}
	}
	return o, f.Err()
}
