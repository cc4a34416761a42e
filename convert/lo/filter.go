package lo

import (
	"maps"
	"slices"
	"strconv"
)

// FilterField is a PDF export filter option that Gotenberg's form passes
// on to LibreOffice as it is: a boolean, or an integer from Min to Max
// (Not excepted when set).
type FilterField struct {
	Field    string // Gotenberg's form field
	Filter   string // the FilterData entry
	Long     bool   // an integer, else a boolean
	Min, Max int
	Not      *int
}

var zero = 0

// FilterFields are the export options Export.Options takes: the
// viewer's preferences and the export's other switches, as LibreOffice's
// PDF export dialog offers them.
var FilterFields = []FilterField{
	{Field: "allowDuplicateFieldNames", Filter: "AllowDuplicateFieldNames"},
	{Field: "exportPlaceholders", Filter: "ExportPlaceholders"},
	{Field: "exportNotesPages", Filter: "ExportNotesPages"},
	{Field: "exportOnlyNotesPages", Filter: "ExportOnlyNotesPages"},
	{Field: "exportNotesInMargin", Filter: "ExportNotesInMargin"},
	{Field: "convertOooTargetToPdfTarget", Filter: "ConvertOOoTargetToPDFTarget"},
	{Field: "exportLinksRelativeFsys", Filter: "ExportLinksRelativeFsys"},
	{Field: "exportHiddenSlides", Filter: "ExportHiddenSlides"},
	{Field: "skipEmptyPages", Filter: "IsSkipEmptyPages"},
	{Field: "addOriginalDocumentAsStream", Filter: "IsAddStream"},
	{Field: "initialView", Filter: "InitialView", Long: true, Min: 0, Max: 2},
	{Field: "initialPage", Filter: "InitialPage", Long: true, Min: 1, Max: 1 << 30},
	{Field: "magnification", Filter: "Magnification", Long: true, Min: 0, Max: 4},
	{Field: "zoom", Filter: "Zoom", Long: true, Min: 1, Max: 6400},
	{Field: "pageLayout", Filter: "PageLayout", Long: true, Min: 0, Max: 3},
	{Field: "firstPageOnLeft", Filter: "FirstPageOnLeft"},
	{Field: "resizeWindowToInitialPage", Filter: "ResizeWindowToInitialPage"},
	{Field: "centerWindow", Filter: "CenterWindow"},
	{Field: "openInFullScreenMode", Filter: "OpenInFullScreenMode"},
	{Field: "displayPDFDocumentTitle", Filter: "DisplayPDFDocumentTitle"},
	{Field: "hideViewerMenubar", Filter: "HideViewerMenubar"},
	{Field: "hideViewerToolbar", Filter: "HideViewerToolbar"},
	{Field: "hideViewerWindowControls", Filter: "HideViewerWindowControls"},
	{Field: "useTransitionEffects", Filter: "UseTransitionEffects"},
	{Field: "openBookmarkLevels", Filter: "OpenBookmarkLevels", Long: true, Min: -1, Max: 10, Not: &zero},
}

// Want says what f takes, for an error.
func (f FilterField) Want() string {
	switch {
	case !f.Long:
		return "true or false"
	case f.Not != nil:
		return "-1 (all) or an integer from 1 to " + strconv.Itoa(f.Max)
	}
	return "an integer from " + strconv.Itoa(f.Min) + " to " + strconv.Itoa(f.Max)
}

// Parse is v as f takes it, in the form Export.Options keeps it ("true",
// "false", an integer without sign or spaces), or false.
func (f FilterField) Parse(v string) (string, bool) {
	if !f.Long {
		b, err := strconv.ParseBool(v)
		return strconv.FormatBool(b), err == nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < f.Min || n > f.Max || f.Not != nil && n == *f.Not {
		return "", false
	}
	return strconv.Itoa(n), true
}

// filterField is the FilterFields entry of a form field, or false.
func filterField(field string) (FilterField, bool) {
	i := slices.IndexFunc(FilterFields, func(f FilterField) bool { return f.Field == field })
	if i < 0 {
		return FilterField{}, false
	}
	return FilterFields[i], true
}

// optionsData is the FilterData of Options, in FilterFields' order.
func (e Export) optionsData() []filterProp {
	var data []filterProp
	for _, f := range FilterFields {
		v, ok := e.Options[f.Field]
		if !ok {
			continue
		}
		t := "boolean"
		if f.Long {
			t = "long"
		}
		data = append(data, filterProp{f.Filter, t, v})
	}
	return data
}

// checkOptions refuses an Options entry no FilterField takes.
func (e Export) checkOptions() []error {
	var errs []error
	for _, f := range FilterFields {
		if v, ok := e.Options[f.Field]; ok {
			if _, valid := f.Parse(v); !valid {
				errs = append(errs, &ExportError{f.Field, strconv.Quote(v), f.Want()})
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Options)) {
		if _, ok := filterField(k); !ok {
			errs = append(errs, &ExportError{k, strconv.Quote(e.Options[k]), "one of LibreOffice's export options"})
		}
	}
	return errs
}
