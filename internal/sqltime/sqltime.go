// Package sqltime is how calq writes times into the journal's TEXT
// columns and reads them back, for the journal and for every package that
// keeps tables in its file: UTC, to the microsecond, fixed width (so that
// text order is time order), in a form SQLite's date functions read.
package sqltime

import (
	"database/sql"
	"time"
)

// Layout is a time column's format, in UTC.
const Layout = "2006-01-02 15:04:05.000000"

// Text renders t for a time column: NULL for the zero time.
func Text(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(Layout)
}

// Parse reads a time column; NULL is the zero time. The fraction is
// optional, for rows that people wrote by hand.
func Parse(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return time.Parse("2006-01-02 15:04:05.999999999", s.String)
}
