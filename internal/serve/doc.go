// Package serve is calq serve: calq convert's warm LibreOffice pool, and
// a warm Chromium pool, over HTTP. It speaks Gotenberg's API (POST
// /forms/libreoffice/convert, /forms/chromium/*, /forms/pdfengines/*,
// /health, /version, /prometheus/metrics), so that
// Gotenberg's clients work unchanged, and adds durable jobs (/jobs),
// users and keys, fair back-pressure and retention.
//
// # Entry points
//
// New builds a Server over Options (the data directory, the journal's
// jobs, the pool, the users); Handler is its HTTP side; Start runs the
// jobs a stopped server left and starts the retention sweep; Stop lets
// running jobs finish within a grace time and leaves the queued ones in
// the journal.
//
// # How a request goes
//
// accept (http.go) reads the form (package form) into the job's
// directory under calq's own names, reads its fields over the user's
// profile into a Task (options.go), reserves room for its files in the
// fair gate (package fair: 413 when it could never fit, 429 with
// Retry-After when the queue is full or, for a synchronous request, when
// the predicted time is over the request's limit), records the job in the
// journal (package jobs) and launches it. A job waits for its turn among
// the jobs (a second fair gate), then runs (task.go): calq convert's own
// convert.Run, whose office documents go one at a time to the fair share
// of the warm pool (fairOffice, run.go), or pdfcpu's steps for the PDF
// engines routes; pdfcpu's work runs in helper processes (Options.PDF),
// killed at the file's timeout, over their memory limit, or when the job
// is cancelled. A Chromium job (chromium_*.go) lays its uploads out under
// the client's names in its own directory (site/, index.html beside its
// assets; a Markdown template rendered first), has a browser of
// Options.Chromium print or capture the page, then runs on the PDF the
// same steps as the LibreOffice route (after, afterPDFA, pack). end records the outcome; what the job owes (its
// webhook, its mail) is delivered in the background and tried again until
// it is delivered or --keep ends.
//
// # Before a request is known
//
// What anyone can make the server do is bounded before it starts. auth
// (auth.go) refuses an API write that a browser sent from another site,
// then finds the user of the request's key or session with at most one
// indexed read (the count of users is read at most once in 5 s). A
// sign-in (page_auth.go) reads at most 8 KiB, is charged to the throttle
// before its password is hashed, and its hash waits for a place of
// users.Hashes (4 at once, 19 MiB each, the memory given back after a
// burst) or is refused with 429. A user holds at most 16 live pages
// (event streams: a job's, the SMS page's, which reads the first page of
// the user's messages once a second and ends within 30 minutes). The connections and HTTP/2 streams are bounded by
// calq serve's HTTP server (internal/cli/servecmd).
//
// With Options.Shared (a PostgreSQL queue) the conversions go through the
// shared queue instead, and the server serves that queue with its pool as
// calq worker does (shared.go).
//
// # Reading the code
//
// server.go (Options, Server, Start, Stop), http.go (routes, accept,
// replies), auth.go (keys, sessions, cross-site writes), options.go (form to Task), task.go (what a job does), run.go
// (a job's life, deliveries, retention, the fair office converter),
// health.go and metrics.go; chromium_task.go (form to ChromiumTask),
// chromium_run.go (what a Chromium job does), chromium_errors.go (the
// pool's errors as Gotenberg's replies), chromium_health.go.
package serve
