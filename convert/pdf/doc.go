// Package pdf does calq's PDF work on top of pdfcpu: it turns images into
// PDFs (FromImages), passes PDFs through with repair (PassThrough), merges
// them (Merge), splits them (Split) and post-processes them with a
// watermark, a stamp, page rotation, flattening of forms and annotations,
// metadata, optimisation and AES-256 encryption (Apply, in Gotenberg's
// order; Post.Check refuses bad options up front, naming Gotenberg's form
// field in a *FieldError). ReadMetadata returns the document information
// as Gotenberg's metadata/read does. Inspect and Text read a PDF back, for
// checks and tests.
//
// Every operation reads and rewrites whole files in memory, so its cost is
// linear in the size of its inputs; pdfcpu gives no way to interrupt a call,
// so ctx is checked between steps only. Each writer builds its result in a
// private temporary directory next to out and renames it into place: on any
// error nothing is written at out (a file already there is left untouched)
// and no temporary file stays behind. A panic inside pdfcpu, which malformed
// input can provoke, becomes an error.
//
// Init prepares pdfcpu's global configuration once; every entry point calls
// it, and after that all functions are safe for concurrent use on distinct
// output files.
package pdf
