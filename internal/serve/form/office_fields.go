package form

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"calq/convert/lo"
)

// officeFields reads the LibreOffice route's export fields in Gotenberg's
// order, LibreOffice's other export options (lo.FilterFields) among them.
func (f *Form) officeFields(o *LibreOfficeOptions) {
	opts := map[string]string{}
	filter := func(names ...string) {
		for _, name := range names {
			f.filterOption(opts, name)
		}
	}
	o.Password = f.Value("password")
	o.Landscape = f.Bool("landscape")
	o.PageRanges = f.pageRanges()
	o.UpdateIndexes = f.Bool("updateIndexes")
	o.ExportFormFields = f.OptBool("exportFormFields")
	filter("allowDuplicateFieldNames")
	o.ExportBookmarks = f.OptBool("exportBookmarks")
	o.ExportBookmarksToPdfDestination = f.Bool("exportBookmarksToPdfDestination")
	filter("exportPlaceholders")
	o.ExportNotes = f.Bool("exportNotes")
	filter("exportNotesPages", "exportOnlyNotesPages", "exportNotesInMargin", "convertOooTargetToPdfTarget",
		"exportLinksRelativeFsys", "exportHiddenSlides", "skipEmptyPages", "addOriginalDocumentAsStream")
	o.SinglePageSheets = f.Bool("singlePageSheets")
	filter("initialView", "initialPage", "magnification", "zoom", "pageLayout", "firstPageOnLeft",
		"resizeWindowToInitialPage", "centerWindow", "openInFullScreenMode", "displayPDFDocumentTitle",
		"hideViewerMenubar", "hideViewerToolbar", "hideViewerWindowControls", "useTransitionEffects", "openBookmarkLevels")
	o.LosslessImageCompression = f.Bool("losslessImageCompression")
	o.Quality = f.IntRange("quality", 0, 1, 100)
	reduce := f.Bool("reduceImageResolution")
	if maxRes := f.IntChoice("maxImageResolution", 300, 75, 150, 300, 600, 1200); reduce {
		o.MaxImageResolution = maxRes
	}
	if len(opts) > 0 {
		o.Options = opts
	}
}

// filterOption reads the export option name (one of lo.FilterFields)
// into opts, in the form lo.Export.Options keeps it; nothing when it is
// absent or bad.
func (f *Form) filterOption(opts map[string]string, name string) {
	i := slices.IndexFunc(lo.FilterFields, func(ff lo.FilterField) bool { return ff.Field == name })
	if i < 0 || !f.Has(name) {
		return
	}
	ff := lo.FilterFields[i]
	if !ff.Long {
		if b := f.OptBool(name); b != nil {
			opts[name] = strconv.FormatBool(*b)
		}
		return
	}
	ok := false
	n := f.IntCheck(name, 0, func(n int) error {
		err := filterReason(ff, n)
		ok = err == nil
		return err
	})
	if ok {
		opts[name] = strconv.Itoa(n)
	}
}

// filterReason says why n is not a value of ff, nil when it is, in
// Gotenberg's words: a few values are named ("value is not 0, 1 or 2"),
// a range with a hole by its parts ("value is not -1 or between 1 and
// 10"), a wide range by the bound n passes ("value is inferior to 1").
func filterReason(ff lo.FilterField, n int) error {
	if _, ok := ff.Parse(strconv.Itoa(n)); ok {
		return nil
	}
	switch {
	case ff.Not != nil:
		return errors.New("value is not " + span(ff.Min, *ff.Not-1) + " or " + span(*ff.Not+1, ff.Max))
	case ff.Max-ff.Min < 5:
		var all []int
		for v := ff.Min; v <= ff.Max; v++ {
			all = append(all, v)
		}
		return oneOfInts(n, all)
	}
	return inRange(n, ff.Min, ff.Max)
}

// span names the integers from lo to hi: "-1", "between 1 and 10".
func span(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("between %d and %d", lo, hi)
}
