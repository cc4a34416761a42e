package pdf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Text returns the text of all pages of the PDF at path, pages separated
// by a form feed. It is an approximation meant for checks and tests: it
// follows the text operators of page content streams and of the form
// XObjects they draw (watermarks and stamps included), decodes strings
// through the fonts' ToUnicode CMaps, or as WinAnsi for simple fonts
// without one, prefers ActualText where the PDF gives it, turns a large
// gap inside a TJ array into a space and breaks lines where the text line
// moves vertically. It cannot read composite-font glyphs without a
// ToUnicode CMap, custom /Differences encodings, text in images or
// annotations; it does not order text by position or reorder
// right-to-left scripts, and does not insert spaces for gaps made by
// moving the text position, so words placed one by one may run together.
func Text(path, password string) (string, error) {
	// Read as for Inspect: text extraction is a check here, and a user
	// password holder may run it even if the PDF forbids copying.
	ctx, err := readContext(path, password, model.LISTINFO)
	if err != nil {
		return "", fmt.Errorf("text of %s: %w", path, err)
	}
	var b strings.Builder
	for p := 1; p <= ctx.PageCount; p++ {
		if p > 1 {
			b.WriteString("\f")
		}
		err := protect("text", func() error { return pageText(ctx.XRefTable, p, &b) })
		if err != nil {
			return "", fmt.Errorf("text of %s: page %d: %w", path, p, err)
		}
	}
	return b.String(), nil
}

func pageText(x *model.XRefTable, page int, b *strings.Builder) error {
	d, _, inh, err := x.PageDict(page, false)
	if err != nil {
		return err
	}
	content, err := x.PageContent(d, page)
	if errors.Is(err, model.ErrNoContent) {
		return nil
	}
	if err != nil {
		return err
	}
	var res types.Dict
	if inh != nil {
		res = inh.Resources
	}
	t := &textRun{x: x, out: b, seen: map[int]bool{}}
	t.run(content, res, 0)
	return nil
}

// textRun interprets content streams of one page.
type textRun struct {
	x     *model.XRefTable
	out   *strings.Builder
	seen  map[int]bool // form XObjects being drawn, against cycles
	forms int          // form XObjects run so far
	lineY float64
	dirty bool // text written since the last line break
	// Marked content: whether each open sequence carries ActualText,
	// which then stands for the glyphs shown inside it.
	marked []bool
	hidden int
}

const (
	maxFormDepth = 8
	maxForms     = 1000
)

func (t *textRun) run(content []byte, res types.Dict, depth int) {
	fonts := map[string]*fontDecoder{}
	var font *fontDecoder
	l := &lexer{b: content}
	var ops []token
	for {
		tok, ok := l.object(0)
		if !ok {
			return
		}
		if tok.kind != tokOp {
			if len(ops) < 64 {
				ops = append(ops, tok)
			}
			continue
		}
		switch op := string(tok.b); op {
		case "Tf":
			if len(ops) >= 2 && ops[0].kind == tokName {
				name := string(ops[0].b)
				if fonts[name] == nil {
					fonts[name] = t.font(res, name)
				}
				font = fonts[name]
			}
		case "Tj", "'", "\"":
			if op != "Tj" {
				t.newline()
			}
			if len(ops) > 0 {
				t.show(font, ops[len(ops)-1])
			}
		case "TJ":
			if len(ops) > 0 {
				t.show(font, ops[len(ops)-1])
			}
		case "Td", "TD", "Tm":
			t.move(op, ops)
		case "T*":
			t.newline()
		case "Do":
			if len(ops) > 0 && ops[0].kind == tokName && depth < maxFormDepth {
				t.form(res, string(ops[0].b), depth)
			}
		case "BMC", "BDC":
			t.beginMarked(ops)
		case "EMC":
			t.endMarked()
		case "ID":
			l.skipInlineImage()
		}
		ops = ops[:0]
	}
}

func (t *textRun) newline() {
	if t.dirty {
		t.out.WriteString("\n")
		t.dirty = false
	}
}

// move breaks the line when the text position moves vertically.
func (t *textRun) move(op string, ops []token) {
	var y float64
	switch {
	case op == "Tm" && len(ops) == 6:
		if y = ops[5].num; y == t.lineY {
			return
		}
	case op != "Tm" && len(ops) == 2:
		if y = ops[1].num; y == 0 {
			return
		}
	default:
		return
	}
	t.lineY = y
	t.newline()
}

// show writes the text of a string or of a TJ array; a large negative
// adjustment in a TJ array counts as a space.
func (t *textRun) show(f *fontDecoder, o token) {
	switch o.kind {
	case tokStr:
		t.write(f.decode(o.b))
	case tokArray:
		for _, e := range o.arr {
			if e.kind == tokNum && e.num < -200 {
				t.write(" ")
			} else if e.kind == tokStr {
				t.write(f.decode(e.b))
			}
		}
	}
}

func (t *textRun) write(s string) {
	if t.hidden > 0 {
		return
	}
	if s != "" {
		t.out.WriteString(s)
		t.dirty = true
	}
}

// form runs the content of the form XObject name, with its own resources.
// A form that draws itself is skipped, and a page runs at most maxForms
// forms, so crafted input cannot make the walk explode.
func (t *textRun) form(res types.Dict, name string, depth int) {
	o := t.entry(res, "XObject", name)
	ir, ok := o.(types.IndirectRef)
	if !ok || t.seen[ir.ObjectNumber.Value()] || t.forms >= maxForms {
		return
	}
	t.forms++
	sd := t.stream(o)
	if sd == nil || sd.Dict.NameEntry("Subtype") == nil || *sd.Dict.NameEntry("Subtype") != "Form" {
		return
	}
	if err := decodeStream(sd); err != nil {
		return
	}
	t.seen[ir.ObjectNumber.Value()] = true
	defer delete(t.seen, ir.ObjectNumber.Value())
	formRes := res
	if o, ok := sd.Dict.Find("Resources"); ok {
		if d, err := t.x.DereferenceDict(o); err == nil && d != nil {
			formRes = d
		}
	}
	t.run(sd.Content, formRes, depth+1)
}

// entry returns res[category][name], dereferenced.
func (t *textRun) entry(res types.Dict, category, name string) types.Object {
	if res == nil {
		return nil
	}
	o, ok := res.Find(category)
	if !ok {
		return nil
	}
	d, err := t.x.DereferenceDict(o)
	if err != nil || d == nil {
		return nil
	}
	o, ok = d.Find(name)
	if !ok {
		return nil
	}
	return o
}

func (t *textRun) stream(o types.Object) *types.StreamDict {
	if o == nil {
		return nil
	}
	sd, _, err := t.x.DereferenceStreamDict(o)
	if err != nil {
		return nil
	}
	return sd
}

func decodeStream(sd *types.StreamDict) error {
	if sd.Content != nil {
		return nil
	}
	return sd.Decode()
}
