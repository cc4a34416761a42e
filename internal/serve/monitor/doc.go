// Package monitor gathers what calq serve's monitoring page shows and
// draws its charts as SVG made by the server.
//
// [Collect] reads every figure at once into a [Snapshot]: each
// LibreOffice instance's state and counters, the fair gate's queue by
// class and by user, the conversions of the last hour (12 buckets of 5
// minutes) and of the last day (24 buckets of an hour) with their p50 and
// p95 run times, the day's failures by reason, optionally analyze's λ, μ
// and predicted wait over the day, and the SMS outbox and inbox. The
// figures come from history.Store's Stats, the same as `calq history
// stats`, and from the same job samples as `calq analyze history`: one
// source of figures. Its cost is 38 Stats queries (12 + 1 for the hour,
// 24 + 1 for the day), one List of the day's conversions when
// Sources.Analyze is set, and the two grouped counts of sms/store; each
// Stats reads the rows of its window only.
//
// [Chart] draws a series as an SVG line or bar chart, every text escaped.
//
// Collect and Chart are safe for concurrent use as far as their Sources are.
package monitor
