// Package convertbench is `calq convert bench`: it converts the same
// documents with one soffice process per file, with one batched soffice
// call, and with calq's pool of warm instances, and reports documents per
// second and the ratios, measured in one run. GenerateDocs writes the
// generated DOCX documents it uses by default. Nothing in calq's
// production packages imports it.
package convertbench
