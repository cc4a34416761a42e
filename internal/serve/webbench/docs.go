package webbench

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
)

// Doc is one document of the bench: a directory holding the files of
// its form, index.html first.
type Doc struct {
	Name  string   // "page-01", "long-02", "markdown"
	Pages int      // the pages it prints to on Letter paper (at least)
	Dir   string   // where its files are
	Files []string // their names in Dir, index.html first
}

// Paths returns the document's files with their directory.
func (d Doc) Paths() []string {
	ps := make([]string, len(d.Files))
	for i, f := range d.Files {
		ps[i] = filepath.Join(d.Dir, f)
	}
	return ps
}

// Docs are the bench's documents.
type Docs struct {
	HTML     []Doc // one-page and multi-page pages, alternately
	OnePage  Doc   // a one-page HTML document
	Markdown Doc   // a one-page Markdown document with its template
}

// LongPages is the number of pages of the multi-page documents.
const LongPages = 6

// Generate writes n HTML documents (one-page and LongPages-page ones,
// alternately, each with a stylesheet and a PNG image), a one-page HTML
// document and a Markdown one into dir, one directory each.
func Generate(dir string, n int) (Docs, error) {
	if n < 1 {
		return Docs{}, fmt.Errorf("generate documents: %d, want at least 1", n)
	}
	logo, err := logoPNG()
	if err != nil {
		return Docs{}, fmt.Errorf("generate documents: %w", err)
	}
	var docs Docs
	for i := range n {
		name, pages := fmt.Sprintf("page-%02d", i+1), 1
		if i%2 == 1 {
			name, pages = fmt.Sprintf("long-%02d", i+1), LongPages
		}
		d, err := writeDoc(dir, name, pages, map[string][]byte{"index.html": htmlPage(name, pages), "logo.png": logo})
		if err != nil {
			return Docs{}, err
		}
		docs.HTML = append(docs.HTML, d)
	}
	if docs.OnePage, err = writeDoc(dir, "one-page", 1, map[string][]byte{"index.html": htmlPage("one-page", 1), "logo.png": logo}); err != nil {
		return Docs{}, err
	}
	docs.Markdown, err = writeDoc(dir, "markdown", 1, map[string][]byte{"index.html": []byte(markdownIndex),
		"doc.md": []byte(markdownDoc), "logo.png": logo})
	return docs, err
}

// writeDoc writes files, with the stylesheet, into dir/name.
func writeDoc(dir, name string, pages int, files map[string][]byte) (Doc, error) {
	d := Doc{Name: name, Pages: pages, Dir: filepath.Join(dir, name), Files: []string{"index.html", "style.css"}}
	files["style.css"] = []byte(stylesheet)
	if err := os.MkdirAll(d.Dir, 0o700); err != nil {
		return Doc{}, fmt.Errorf("generate %s: %w", name, err)
	}
	for f, b := range files {
		if f != "index.html" && f != "style.css" {
			d.Files = append(d.Files, f)
		}
		if err := os.WriteFile(filepath.Join(d.Dir, f), b, 0o600); err != nil {
			return Doc{}, fmt.Errorf("generate %s: %w", name, err)
		}
	}
	return d, nil
}

// htmlPage is an HTML document of the given pages: each a heading, the
// image, a table and paragraphs, and a page break after all but the last.
func htmlPage(title string, pages int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n"+
		"<link rel=\"stylesheet\" href=\"style.css\"></head><body>\n", title)
	for p := range pages {
		class := ""
		if p < pages-1 {
			class = ` class="break"`
		}
		fmt.Fprintf(&b, "<section%s><h1>%s, page %d</h1><img src=\"logo.png\" alt=\"logo\">\n", class, title, p+1)
		b.WriteString("<table><tr><th>item</th><th>quantity</th><th>price</th></tr>\n")
		for r := range 5 {
			fmt.Fprintf(&b, "<tr><td>article %d</td><td>%d</td><td>%d.%02d €</td></tr>\n", r+1, r*3+1, r*17+5, r*7%100)
		}
		b.WriteString("</table>\n")
		for range 3 {
			b.WriteString("<p>" + strings.Repeat(lorem, 2) + "</p>\n")
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

const lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor " +
	"incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation. "

const stylesheet = `body { font-family: sans-serif; font-size: 11pt; color: #222; }
h1 { font-size: 18pt; color: #1a4d8f; border-bottom: 2px solid #1a4d8f; }
img { width: 200px; height: 80px; display: block; margin: 8px 0; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { border: 1px solid #999; padding: 3px 6px; text-align: left; }
th { background: #e8eef7; }
.break { break-after: page; }
`

const markdownIndex = `<!doctype html>
<html><head><meta charset="utf-8"><title>markdown</title><link rel="stylesheet" href="style.css"></head>
<body>{{ toHTML "doc.md" }}</body></html>
`

const markdownDoc = "# A Markdown page\n\n![logo](logo.png)\n\n" +
	"Some *emphasis*, some **strong** text and `code`.\n\n" +
	"| item | quantity | price |\n|---|---:|---:|\n| article 1 | 1 | 5.00 € |\n| article 2 | 4 | 22.07 € |\n\n" +
	"- one\n- two\n- three\n\n" + lorem + "\n"

// logoPNG is a 200×80 image with a gradient.
func logoPNG() ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, 200, 80))
	for x := range 200 {
		for y := range 80 {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(3 * y), B: 160, A: 255})
		}
	}
	var b bytes.Buffer
	err := png.Encode(&b, img)
	return b.Bytes(), err
}
