package web

import "embed"

// Templates are the pages, each parsed with templates/layout.html:
// html/template files that define "content" (and may define "head").
//
//go:embed templates/*.html
var Templates embed.FS
