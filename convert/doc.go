// Package convert is calq convert: it converts directories of office
// documents, images and PDFs to PDF, incrementally and resumably.
//
// # Entry points
//
// Run is the batch: PlanFiles (or Plan) walks the inputs and names each
// output; every file is then a job on a sched engine, office documents on
// a pool of warm LibreOffice instances (convert/lo) and images and PDFs
// through pdfcpu (convert/pdf, in helper processes of convert/pdfpool,
// held to each file's timeout and a memory limit; a PDF over
// Options.PDFLimits fails at once), web pages (HTML and Markdown files
// with HTMLOptions' Chromium engine, and Options.URLs) on a Chromium pool
// (convert/chromium) created at the first page and closed at the end,
// followed by the post-processing
// Options ask for (watermark, stamp, PDF/A, metadata, encryption) and an
// optional merge. Each PDF is written to a temporary file beside its place and
// renamed into it, and its provenance (digests of the input, of the
// options and of the PDF) goes to a Store, kept in the journal's file
// (SQLStore); a file whose PDF on disk is what these inputs and options
// produce is skipped. A PDF belongs to one input, identified by its real
// path: one that calq wrote for another input is refused like a file it
// did not write, and so is a merged file of other inputs. Doctor checks the environment behind calq doctor.
// The packages beside it: convert/mail delivers the PDFs by e-mail,
// convert/contacts keeps the address book, convert/sniff tells a file's
// type by its bytes, and convert/convertbench measures calq against
// soffice.
//
// # Cost and concurrency
//
// A LibreOffice instance takes about a second to start and then from tens
// of milliseconds to seconds per document; images and PDFs cost
// milliseconds. Run starts the pool once and converts as many files at
// once as it has instances (Options.LibreOffice), and pdfcpu work on the
// cores. Two runs at once, in one process or several, share the journal's
// claims, so no file is converted twice, and a run killed at any point
// resumes where it stopped.
//
// # Reading the code
//
// Start with convert.go (Options, Run), then plan.go, urls.go and inputs.go (what
// is converted and where it goes; each input once), run.go and work.go (the engine and each file's
// job), page.go and pagework.go (web pages; assets.go: what of a page's
// directory counts toward its digest), held.go (files another run holds), store.go (provenance) and
// merge.go (the merged file and its provenance).
package convert
