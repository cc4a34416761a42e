// Package form reads a Gotenberg multipart request into typed values,
// bounded and safe, for calq serve.
//
// Entry points:
//
//   - [Read] streams a multipart/form-data request: every part with a file
//     name is written into the given directory under a generated name
//     (0001.docx, 0002, ...), never under the name the client sent, and every
//     other part is kept as a bounded string field; a file that is a PDF
//     over Limits.PDF (pdf.CheckLimits: its pages, what its streams
//     inflate to) is refused with a 413. Its cost is one pass over the
//     body and one over each PDF; memory is bounded by [Limits].
//   - [Form.AddFile] stores one more file of a read Form as Read stores an
//     upload (the downloads of downloadFrom), within the same Limits.
//   - [Form]'s typed getters ([Form.Bool], [Form.Int], [Form.Choice],
//     [Form.JSON], ...) read fields and record the first bad one, which
//     [Form.Err] returns.
//   - [LibreOffice], [PDFEngines] and [Chromium] map the fields of
//     Gotenberg's /forms/libreoffice/convert, /forms/pdfengines/* and
//     /forms/chromium/* routes to option structs; [Chromium] reads
//     header.html and footer.html (1 MiB at most each) from the disk.
//   - [Headers] reads Gotenberg-Output-Filename and Gotenberg-Trace.
//
// Every error meant for the HTTP client is an [*Error] carrying the status
// and one sentence worded like Gotenberg's. A Form is not safe for concurrent
// use; distinct Forms are independent.
package form
