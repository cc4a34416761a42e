// Package pdfpool is calq's pdfcpu converter: it does the work of
// package pdf (FromImages, PassThrough, Merge, Split, Apply, ReadMetadata,
// PDFA) in helper processes that can be stopped at any instant, since a
// pdfcpu call cannot be interrupted and a crafted PDF can make one run
// for hours (rotating 100,000 pages) or grow by gigabytes (a 1 MB file
// whose stream inflates to 1 GiB).
//
// A helper is calq's own executable run again through internal/proc
// (proc.StartHelper: it dies with calq), serving one operation at a time
// on a pipe. A [Pool] runs at most Options.Helpers of them at once and
// keeps them warm between operations. While a helper works, its resident
// memory is read from /proc every 100 ms; it is killed, and the
// operation fails, when the caller's context ends, when the operation's
// time limit passes ([*TimeoutError]: "took longer than the file timeout
// of 60s"), or when it grows over Options.MemoryLimit ([*MemoryError]:
// "needs more than 1024 MiB of memory to process"). A helper that dies on
// its own fails the operation with [*CrashError]. Errors pdf returns
// keep what callers branch on across the pipe: pdf.ErrEncrypted,
// pdf.ErrImageTooLarge, *pdf.FieldError and the system's errno.
//
// Outputs are written as pdf writes them, complete or not at all: the
// helper writes into a private directory beside the output, which the
// pool renames into place and removes, also after a kill.
//
// The cost: starting a helper re-executes calq (0.12-0.35 s measured on
// a busy machine, most of it in package initialisation), paid once per
// warm helper; an operation then costs a request and a reply on a pipe
// and reads of /proc: a few milliseconds, lost in the noise of anything
// but the smallest PDFs (calq convert bench --pdf prints the ratio to
// pdf's own functions). Where helpers cannot run (systems other than Linux) the
// work is done in calq's own process, unbounded, as pdf does it.
//
// A Pool is safe for concurrent use; a program that uses one must call
// proc.MaybeRunGuard first thing in main (and in TestMain).
package pdfpool
