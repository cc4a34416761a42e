package web

import (
	"embed"
	"io/fs"
)

// FS holds the embedded files as they lie in this directory, under
// static/.
//
//go:embed static
var FS embed.FS

// Static is the tree of static files, rooted at static/: "viewer.js",
// "pdfjs/pdf.min.mjs"... Serve it at /static/ with
// http.StripPrefix("/static/", http.FileServerFS(web.Static)).
var Static fs.FS = mustSub(FS, "static")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // dir is a constant embedded above
	}
	return sub
}
