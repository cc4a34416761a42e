package analyzecmd

import (
	"fmt"
	"io"
	"text/tabwriter"

	"calq/analyze"
)

// writeSimModelNotes says what patience and priority classes do to the
// model, when it has them.
func writeSimModelNotes(w io.Writer, r analyze.SimResult) {
	if r.Patience != "" {
		fmt.Fprintf(w, "patience %s: a customer still waiting when it runs out abandons; W, Wq and P(wait) are of the served\n", r.Patience)
	}
	if len(r.Classes) > 0 {
		fmt.Fprintf(w, "%d priority classes, 1 the highest, %s\n", len(r.Classes), simDiscipline(r.Preemptive))
	}
}

func simDiscipline(preemptive bool) string {
	if preemptive {
		return "preemptive-resume (Wq is time in system less service)"
	}
	return "non-preemptive"
}

// lostWord says what became of arrivals that were not served.
func lostWord(r analyze.SimResult) string {
	if r.Patience != "" {
		return "blocked or abandoned"
	}
	return "blocked"
}

// writeSimClasses writes a table of each priority class's measures.
func writeSimClasses(w io.Writer, r analyze.SimResult) error {
	if len(r.Classes) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	exact := r.Classes[0].W.Analytic != nil
	fmt.Fprint(tw, "CLASS\tλ\tSERVICE\tW\t95% CI\tWq\t95% CI\tL\tLq")
	if r.Patience != "" {
		fmt.Fprint(tw, "\tP(abandon)")
	}
	if exact {
		fmt.Fprint(tw, "\tANALYTIC W\tANALYTIC Wq")
	}
	fmt.Fprintln(tw)
	for _, c := range r.Classes {
		fmt.Fprintf(tw, "%d\t%g\t%s\t%.5g\t[%.5g, %.5g]\t%.5g\t[%.5g, %.5g]\t%.5g\t%.5g", c.Class, c.Lambda, c.Service,
			c.W.Mean, c.W.CILow, c.W.CIHigh, c.Wq.Mean, c.Wq.CILow, c.Wq.CIHigh, c.L.Mean, c.Lq.Mean)
		if c.PAbandon != nil {
			fmt.Fprintf(tw, "\t%.5g", c.PAbandon.Mean)
		}
		if exact {
			fmt.Fprintf(tw, "\t%.5g\t%.5g", *c.W.Analytic, *c.Wq.Analytic)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
