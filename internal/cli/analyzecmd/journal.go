package analyzecmd

import (
	"time"

	"github.com/urfave/cli/v2"

	"calq/analyze"
	"calq/internal/cli/base"
	"calq/internal/histsample"
	"calq/sched/history"
	"calq/sched/journal"
)

// filterFlags are the journal's filters of analyze history and analyze
// priority --from-history; note says when they apply, "" always.
func filterFlags(note string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "kind", Usage: note + "only jobs of this `KIND` (shell, convert, sms, ...)"},
		&cli.StringFlag{Name: "backend", Usage: note + "only jobs whose last attempt ran on `BACKEND`"},
		&cli.StringFlag{Name: "since", Usage: note + "only jobs enqueued at or after `TIME`"},
		&cli.StringFlag{Name: "until", Usage: note + "only jobs enqueued before `TIME`"},
	}
}

// journalFilter reads the filterFlags, adding what is wrong to errs.
func journalFilter(c *cli.Context, errs *base.FlagErrors) journal.Filter {
	f := journal.Filter{Kind: c.String("kind"), Backend: c.String("backend")}
	now := time.Now()
	var err error
	if f.Since, err = base.ParseWhen("since", c.String("since"), now); err != nil {
		errs.Add(err)
	}
	if f.Until, err = base.ParseWhen("until", c.String("until"), now); err != nil {
		errs.Add(err)
	}
	return f
}

// withJobSamples calls fn with the journal's jobs that match f, as
// analyze's samples.
func withJobSamples(c *cli.Context, f journal.Filter, fn func([]analyze.JobSample) error) error {
	return base.WithHistory(c, func(s history.Store) error {
		recs, err := s.List(c.Context, f)
		if err != nil {
			return err
		}
		return fn(histsample.FromRecords(recs))
	})
}
