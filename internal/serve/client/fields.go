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
	set("exportBookmarksToPdfDestination", e.ExportBookmarksToPdfDestination)
	set("updateIndexes", e.UpdateIndexes)
	nativeWatermark(f, e)
	maps.Copy(f, e.Options)
	return f
}

// nativeWatermark sets the fields of LibreOffice's own watermarks; the
// colour always, as calq serve reads Gotenberg's colour when it is absent.
func nativeWatermark(f map[string]string, e lo.Export) {
	if e.NativeWatermarkText != "" {
		f["nativeWatermarkText"] = e.NativeWatermarkText
		f["nativeWatermarkColor"] = strconv.Itoa(e.NativeWatermarkColor)
		if e.NativeWatermarkFontHeight != 0 {
			f["nativeWatermarkFontHeight"] = strconv.Itoa(e.NativeWatermarkFontHeight)
		}
		if e.NativeWatermarkRotateAngle != 0 {
			f["nativeWatermarkRotateAngle"] = strconv.Itoa(e.NativeWatermarkRotateAngle)
		}
		if e.NativeWatermarkFontName != "" {
			f["nativeWatermarkFontName"] = e.NativeWatermarkFontName
		}
	}
	if e.NativeTiledWatermarkText != "" {
		f["nativeTiledWatermarkText"] = e.NativeTiledWatermarkText
	}
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
