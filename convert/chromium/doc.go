// Package chromium converts web pages (HTML files with their assets,
// Markdown rendered to HTML, URLs) to PDF and to images with a warm pool
// of headless Chromium browsers, as convert/lo does office documents with
// LibreOffice.
//
// (The contract: the types in options.go and the Pool's methods. The
// package documentation is written with the implementation.)
package chromium
