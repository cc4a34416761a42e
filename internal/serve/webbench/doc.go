// Package webbench is calq convert bench --chromium: it measures calq
// serve's Chromium routes against one chromium process per file (the
// naive baseline) and against Gotenberg, in one run on the same
// generated documents.
//
// Run generates the documents ([Generate]: one-page and multi-page HTML
// with a stylesheet and an image, and a Markdown page), converts the
// first of them with one `chromium --print-to-pdf` each, then sends them
// all to Gotenberg (when Options.Gotenberg names its binary) and to an
// in-process calq serve with a warm chromium.Pool, at 1 and 4 clients;
// it times a warm one-page HTML and Markdown conversion on both, reads
// the browsers' memory after 100, 500 and 1,000 conversions, and
// calq serve's own CPU per conversion. The clients run in a helper
// process (calq's executable run again, see proc.StartHelper), so that
// the CPU calq's process spends is the server's alone: the browsers are
// other processes.
//
// A run takes minutes (the 1,000 conversions of the memory run
// dominate) and starts up to three browsers. Run is not safe for
// concurrent use with itself: it measures its own process's CPU.
package webbench
