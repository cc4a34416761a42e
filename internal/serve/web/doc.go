// Package web holds the files that calq serve's pages send to browsers,
// embedded in the binary: [Static] is the tree served at /static/ (the
// PDF viewer viewer.js and viewer.css, and PDF.js under pdfjs/, whose
// README.md names its version and source).
//
// The PDF viewer's contract, for the pages that use it: an element
// <div id="viewer" data-src="URL of a PDF"></div> and the module
// <script type="module" src="/static/viewer.js"></script> (no inline
// script, no eval: it works under a Content-Security-Policy of
// script-src 'self'). viewer.js then
//
//   - sets data-pages="N" on #viewer once the document is open;
//   - appends, in order, one <div class="page" data-page="n"> per page,
//     each holding a <canvas> and a <div class="textLayer"> with the
//     page's text (so that the browser's find, and tests, see it);
//   - sets data-rendered="N" on #viewer once all N pages are drawn; at
//     most data-max-pages of them (300 without it), each page being a
//     canvas in the tab's memory;
//   - when it cannot show the document, or not all of it, sets
//     data-error on #viewer (encrypted, invalid, empty, http, failed;
//     too-large when the pages are over the limit and only the first are
//     drawn) and writes a sentence for people into <p id="viewer-error">,
//     which it shows (a page may hold it hidden) or creates before
//     #viewer if the page has none.
//
// Pages are scaled to the viewer's width, at most 1.5 (150 %), and drawn
// at the screen's device pixel ratio.
package web
