// Package gendoc writes small, valid, deterministic word-processing documents
// (DOCX and ODT) for tests and benchmarks of the converter.
//
// Entry points: DOCX and ODT (a title and n paragraphs), Doc.WriteDOCX and
// Doc.WriteODT (with section headings and tables), and Batch (n files of a
// named size in a directory). Output depends only on the arguments: the same
// Doc always gives the same bytes. The text is pseudo-Latin, about 90 words a
// paragraph; with the page setup used (A4, 2.5 cm margins, 12 pt Times New
// Roman, rendered by LibreOffice with Liberation Serif) about 4.5 paragraphs
// fill a page. Everything here is safe for concurrent use.
package gendoc

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Doc describes a document to generate.
type Doc struct {
	Title      string
	Paragraphs int // body paragraphs of about 90 words
	Tables     int // tables, spread evenly through the body
	TableRows  int // rows per table, under a header row
	Seed       int // varies the text between documents of the same shape
}

// DOCX writes a minimal valid OOXML word-processing package with a title and
// the given number of paragraphs.
func DOCX(w io.Writer, title string, paragraphs int) error {
	return Doc{Title: title, Paragraphs: paragraphs}.WriteDOCX(w)
}

// ODT writes a minimal valid OpenDocument text package with a title and the
// given number of paragraphs.
func ODT(w io.Writer, title string, paragraphs int) error {
	return Doc{Title: title, Paragraphs: paragraphs}.WriteODT(w)
}

// Sizes Batch accepts, as documents of about this many pages.
var sizes = map[string]func(i int) Doc{
	// 2 to 5 pages of text, cycling by index.
	"small": func(i int) Doc { return Doc{Paragraphs: 9 + 5*(i%4)} },
	// About 15 pages: text with eight 20-row tables.
	"large": func(i int) Doc { return Doc{Paragraphs: 60, Tables: 8, TableRows: 20} },
}

// Batch writes n DOCX documents named doc-01.docx, doc-02.docx, ... into dir
// (which must exist) and returns their paths. size is "small" (2-5 pages of
// text each) or "large" (about 15 pages with tables each).
func Batch(dir string, n int, size string) ([]string, error) {
	shape, ok := sizes[size]
	if !ok {
		return nil, fmt.Errorf("gendoc: unknown size %q (want small or large)", size)
	}
	width := max(2, len(fmt.Sprint(n)))
	paths := make([]string, 0, n)
	for i := range n {
		d := shape(i)
		d.Seed = i
		d.Title = fmt.Sprintf("Generated document %d of %d", i+1, n)
		p := filepath.Join(dir, fmt.Sprintf("doc-%0*d.docx", width, i+1))
		if err := writeFile(p, d.WriteDOCX); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gendoc: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("gendoc: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("gendoc: %w", err)
	}
	return nil
}

// modTime is the fixed timestamp of every zip entry, for reproducible output.
var modTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

type part struct {
	name  string
	body  string
	store bool // uncompressed (the ODF mimetype entry)
}

func writeZip(w io.Writer, parts []part) error {
	zw := zip.NewWriter(w)
	for _, p := range parts {
		h := &zip.FileHeader{Name: p.name, Method: zip.Deflate, Modified: modTime}
		if p.store {
			h.Method = zip.Store
		}
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(fw, p.body); err != nil {
			return err
		}
	}
	return zw.Close()
}

// A body is the document's content in order: the title, then paragraphs with
// a heading before every fifth, and tables spread evenly between them.
type block struct {
	kind string // "title", "heading", "para", "table"
	text string
	rows [][]string
}

func (d Doc) blocks() []block {
	out := []block{{kind: "title", text: d.Title}}
	every := 0
	if d.Tables > 0 {
		every = max(1, d.Paragraphs/d.Tables)
	}
	tables := 0
	for i := range d.Paragraphs {
		if i%5 == 0 {
			out = append(out, block{kind: "heading", text: fmt.Sprintf("Section %d", i/5+1)})
		}
		out = append(out, block{kind: "para", text: paragraph(d.Seed, i)})
		if every > 0 && (i+1)%every == 0 && tables < d.Tables {
			tables++
			out = append(out, block{kind: "table", rows: table(d.Seed, tables, d.TableRows)})
		}
	}
	for tables < d.Tables {
		tables++
		out = append(out, block{kind: "table", rows: table(d.Seed, tables, d.TableRows)})
	}
	return out
}

var words = strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod
	tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation
	ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate
	velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa
	qui officia deserunt mollit anim id est laborum`)

// rng is a tiny deterministic generator (a 32-bit LCG): the text must not
// change between Go releases, which math/rand does not promise for seeds.
type rng uint32

func (r *rng) next(n int) int {
	*r = *r*1664525 + 1013904223
	return int(uint32(*r)>>8) % n
}

func paragraph(seed, i int) string {
	r := rng(seed*7919 + i*104729 + 1)
	var b strings.Builder
	for n := 0; n < 90; {
		sentence := 8 + r.next(8)
		for j := range sentence {
			w := words[r.next(len(words))]
			if j == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
		b.WriteByte('.')
		n += sentence
	}
	return b.String()
}

func table(seed, t, rows int) [][]string {
	r := rng(seed*31 + t*17 + 3)
	out := [][]string{{"No.", "Item", "Quantity", "Unit price", "Total"}}
	for i := range rows {
		q, p := 1+r.next(50), 1+r.next(9999)
		out = append(out, []string{
			fmt.Sprint(i + 1),
			words[r.next(len(words))] + " " + words[r.next(len(words))],
			fmt.Sprint(q),
			fmt.Sprintf("%d.%02d", p/100, p%100),
			fmt.Sprintf("%d.%02d", q*p/100, q*p%100),
		})
	}
	return out
}
