package base

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Measure is one row of a two-column table: a symbol with a plain name,
// and a value.
type Measure struct{ Name, Value string }

// WriteMeasures writes rows as an aligned table of two columns, under
// title unless it is empty.
func WriteMeasures(w io.Writer, title string, rows []Measure) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if title != "" {
		fmt.Fprintln(tw, title)
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r.Name, r.Value)
	}
	return tw.Flush()
}
