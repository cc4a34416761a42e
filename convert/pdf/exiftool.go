package pdf

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ExifToolJSON is metadata as ReadMetadata gives it, in the shape of
// ExifTool's JSON (exiftool -j), which Gotenberg's metadata/read answers
// and its clients read: CreationDate under ExifTool's name CreateDate,
// dates as "2006:01:02 15:04:05-07:00", a value that looks like a number
// as a number (PDFVersion 1.7, PageCount 3), Marked as a boolean, and
// Keywords written as a comma-separated list as a list. m is not changed.
func ExifToolJSON(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if _, ok := m["CreationDate"]; ok && k == "CreateDate" {
			continue // a custom key of that name yields to the date itself
		}
		switch k {
		case "CreationDate", "ModDate":
			if k == "CreationDate" {
				k = "CreateDate"
			}
			out[k] = exifDate(v)
		case "Keywords":
			out[k] = exifList(v)
		case "Marked":
			out[k] = exifBool(v)
		default:
			out[k] = exifScalar(v)
		}
	}
	return out
}

// exifDate is an RFC 3339 date (ReadMetadata's) in ExifTool's format; any
// other text as it is.
func exifDate(v string) string {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return v
	}
	return t.Format("2006:01:02 15:04:05Z07:00")
}

// exifList splits a comma- or semicolon-separated list; one item stays a
// value of its own, as ExifTool prints it.
func exifList(v string) any {
	var items []any
	for _, s := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
		if s = strings.TrimSpace(s); s != "" {
			items = append(items, exifScalar(s))
		}
	}
	if len(items) == 1 {
		return items[0]
	}
	if len(items) == 0 {
		return v
	}
	return items
}

func exifBool(v string) any {
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	}
	return exifScalar(v)
}

// exifNumber is what ExifTool's JSON prints as a number: an integer without
// leading zeros, a decimal fraction, an exponent, all short enough to keep
// their digits in a float64.
var exifNumber = regexp.MustCompile(`^-?(\d|[1-9]\d{1,14})(\.\d{1,16})?([eE][-+]?\d{1,3})?$`)

func exifScalar(v string) any {
	if exifNumber.MatchString(v) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return v
}
