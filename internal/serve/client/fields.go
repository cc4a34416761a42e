package client

import (
	"maps"
	"slices"
	"strconv"

	"calq/convert/lo"
)

// Fields are a conversion's options as the form fields of Gotenberg's
// POST /forms/libreoffice/convert, which calq serve reads back into the
// same options.
func Fields(o lo.ConvertOptions) map[string]string {
	f := map[string]string{}
	if o.PDFA > 0 {
		f["pdfa"] = "PDF/A-" + strconv.Itoa(o.PDFA) + "b"
	}
	e := o.Export
	set := func(name string, v bool) {
		if v {
			f[name] = "true"
		}
	}
	set("landscape", e.Landscape)
	set("pdfua", e.PDFUA)
	set("singlePageSheets", e.SinglePageSheets)
	set("exportNotes", e.ExportNotes)
	set("losslessImageCompression", e.LosslessImageCompression)
	if e.ExportFormFields != nil {
		f["exportFormFields"] = strconv.FormatBool(*e.ExportFormFields)
	}
	if e.ExportBookmarks != nil {
		f["exportBookmarks"] = strconv.FormatBool(*e.ExportBookmarks)
	}
	if e.PageRanges != "" {
		f["nativePageRanges"] = e.PageRanges
	}
	if e.Quality > 0 {
		f["quality"] = strconv.Itoa(e.Quality)
	}
	if e.MaxImageResolution > 0 {
		// Gotenberg reads the resolution only with this switch on.
		f["reduceImageResolution"] = "true"
		f["maxImageResolution"] = strconv.Itoa(e.MaxImageResolution)
	}
	if e.Password != "" {
		f["password"] = e.Password
	}
	return f
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
