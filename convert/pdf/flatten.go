package pdf

import (
	"fmt"
	"io"
	"math"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// pdfcpu v0.15 has no flattening (Gotenberg flattens with QPDF), so calq
// does what QPDF's --flatten-annotations=all does, on pdfcpu's object
// model: every annotation whose normal appearance stream exists is drawn
// into its page's content as a form XObject, placed on the annotation's
// rectangle as PDF 32000-1 12.5.5 says, and removed; the document's
// interactive form (AcroForm, XFA included) is removed.
//
// What it cannot do, and does instead:
//   - pdfcpu cannot generate appearance streams (QPDF's
//     --generate-appearances), so a form field that has a value but no
//     appearance dictionary to show it (left to the viewer to draw) is an
//     error rather than a silent loss;
//   - hidden (Hidden or NoView flag) annotations, form fields with neither
//     value nor appearance, and those whose appearance state (AS) names no
//     appearance (LibreOffice 7.4 writes /AS /Yes for a check box whose
//     states are /on and /Off) are removed without being drawn, as
//     viewers draw nothing for them;
//   - other annotations without an appearance (links, most often) are
//     kept, with their pop-ups;
//   - the NoRotate and NoZoom flags of a note on a rotated page are not
//     honoured: its appearance turns with the page.
const (
	flagHidden = 1 << 1
	flagNoView = 1 << 5
)

// flatten is the Post.Flatten step.
func flatten(rs io.ReadSeeker, w io.Writer) error {
	ctx, err := readFrom(rs, "", model.ADDANNOTATIONS)
	if err != nil {
		return err
	}
	for p := 1; p <= ctx.PageCount; p++ {
		if err := flattenPage(ctx.XRefTable, p); err != nil {
			return fmt.Errorf("page %d: %w", p, err)
		}
	}
	root, err := ctx.Catalog()
	if err != nil {
		return err
	}
	root.Delete("AcroForm")
	return api.WriteContext(ctx, w)
}

// flattenPage draws and removes the annotations of page p that it can.
func flattenPage(xt *model.XRefTable, p int) error {
	page, _, inherited, err := xt.PageDict(p, false)
	if err != nil {
		return err
	}
	o, ok := page.Find("Annots")
	if !ok {
		return nil
	}
	annots, err := xt.DereferenceArray(o)
	if err != nil || annots == nil {
		return err
	}
	var draw []byte
	xobjects := types.Dict{}
	removed := map[int]bool{}
	var kept types.Array
	for _, a := range annots {
		d, err := xt.DereferenceDict(a)
		if err != nil || d == nil {
			continue // a dangling annotation: drop it
		}
		ir, form, err := appearance(xt, d)
		if err != nil {
			return err
		}
		switch {
		case form != nil:
			name := fmt.Sprintf("CalqFlat%d", ir.ObjectNumber)
			xobjects[name] = *ir
			draw = append(draw, placement(d, form, name)...)
		case !invisible(d) && isWidget(d):
			if _, ok := d.Find("AP"); ok {
				break // an appearance, but none for its state (AS): viewers draw nothing
			}
			if err := unseenValue(xt, d); err != nil {
				return err
			}
		case !invisible(d):
			kept = append(kept, a)
			continue
		}
		if r, ok := a.(types.IndirectRef); ok {
			removed[r.ObjectNumber.Value()] = true
		}
	}
	kept = withoutOrphanPopups(xt, kept, removed)
	if len(kept) == 0 {
		page.Delete("Annots")
	} else {
		page["Annots"] = kept
	}
	if len(draw) == 0 {
		return nil
	}
	if err := addXObjects(xt, page, inherited, xobjects); err != nil {
		return err
	}
	return wrapContent(xt, page, draw)
}

func isWidget(d types.Dict) bool {
	s := d.NameEntry("Subtype")
	return s != nil && *s == "Widget"
}

// invisible says whether viewers never show annotation d.
func invisible(d types.Dict) bool {
	f := d.IntEntry("F")
	return f != nil && *f&(flagHidden|flagNoView) != 0
}

// appearance returns annotation d's normal appearance stream, of the
// state AS names when there are several, if it is visible and has one.
func appearance(xt *model.XRefTable, d types.Dict) (*types.IndirectRef, *types.StreamDict, error) {
	if invisible(d) {
		return nil, nil, nil
	}
	ap, err := xt.DereferenceDict(d["AP"])
	if err != nil || ap == nil {
		return nil, nil, err
	}
	n := ap["N"]
	if states, err := xt.DereferenceDict(n); err == nil && states != nil {
		as := d.NameEntry("AS")
		if as == nil {
			return nil, nil, nil
		}
		n = states[*as]
	}
	ir, ok := n.(types.IndirectRef)
	if !ok {
		return nil, nil, nil
	}
	sd, _, err := xt.DereferenceStreamDict(ir)
	if err != nil || sd == nil {
		return nil, nil, err
	}
	sd.Dict["Type"] = types.Name("XObject")
	sd.Dict["Subtype"] = types.Name("Form")
	return &ir, sd, nil
}

// unseenValue refuses a form field widget with a value but no appearance
// to draw: flattening it would lose the value.
func unseenValue(xt *model.XRefTable, widget types.Dict) error {
	field := widget
	for range 32 { // the value may be inherited from a parent field
		if v, ok := field["V"]; ok {
			if s, ok := infoValue(xt, v); ok && (s == "" || s == "Off") {
				return nil // empty, or a check box or radio button off
			}
			name, _ := infoValue(xt, widget["T"])
			return fmt.Errorf("form field %q has a value but no appearance to draw it with, and pdfcpu cannot generate one", name)
		}
		parent, err := xt.DereferenceDict(field["Parent"])
		if err != nil || parent == nil {
			return nil
		}
		field = parent
	}
	return nil
}

// withoutOrphanPopups drops the pop-ups whose parent annotation was
// removed.
func withoutOrphanPopups(xt *model.XRefTable, annots types.Array, removed map[int]bool) types.Array {
	var kept types.Array
	for _, a := range annots {
		d, err := xt.DereferenceDict(a)
		if err == nil && d != nil {
			if parent, ok := d["Parent"].(types.IndirectRef); ok && removed[parent.ObjectNumber.Value()] {
				continue
			}
		}
		kept = append(kept, a)
	}
	return kept
}

// placement is the content drawing form (named name) on the rectangle of
// annotation d: the form's bounding box, transformed by its matrix, is
// scaled and moved onto the rectangle (PDF 32000-1, 12.5.5).
func placement(d types.Dict, form *types.StreamDict, name string) []byte {
	rect := rectangle(d.ArrayEntry("Rect"))
	box := rectangle(form.Dict.ArrayEntry("BBox"))
	if rect == nil || box == nil {
		return nil
	}
	m := [6]float64{1, 0, 0, 1, 0, 0}
	if a := form.Dict.ArrayEntry("Matrix"); len(a) == 6 {
		for i, v := range a {
			if f, ok := number(v); ok {
				m[i] = f
			}
		}
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [][2]float64{{box[0], box[1]}, {box[2], box[1]}, {box[0], box[3]}, {box[2], box[3]}} {
		x, y := m[0]*c[0]+m[2]*c[1]+m[4], m[1]*c[0]+m[3]*c[1]+m[5]
		minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
	}
	if maxX-minX < 1e-6 || maxY-minY < 1e-6 {
		return nil
	}
	sx, sy := (rect[2]-rect[0])/(maxX-minX), (rect[3]-rect[1])/(maxY-minY)
	return fmt.Appendf(nil, "q %.6f 0 0 %.6f %.6f %.6f cm /%s Do Q\n", sx, sy, rect[0]-minX*sx, rect[1]-minY*sy, name)
}

// rectangle normalises a PDF rectangle to llx, lly, urx, ury.
func rectangle(a types.Array) []float64 {
	if len(a) != 4 {
		return nil
	}
	var r [4]float64
	for i, v := range a {
		f, ok := number(v)
		if !ok {
			return nil
		}
		r[i] = f
	}
	return []float64{min(r[0], r[2]), min(r[1], r[3]), max(r[0], r[2]), max(r[1], r[3])}
}

func number(o types.Object) (float64, bool) {
	switch v := o.(type) {
	case types.Integer:
		return float64(v), true
	case types.Float:
		return float64(v), true
	}
	return 0, false
}

// addXObjects adds xobjects to the page's resources, giving the page its
// own copy of inherited resources first.
func addXObjects(xt *model.XRefTable, page types.Dict, inherited *model.InheritedPageAttrs, xobjects types.Dict) error {
	res, err := xt.DereferenceDict(page["Resources"])
	if err != nil {
		return err
	}
	if res == nil {
		res = types.Dict{}
		if inherited != nil && inherited.Resources != nil {
			res = inherited.Resources.Clone().(types.Dict)
		}
		page["Resources"] = res
	}
	xo, err := xt.DereferenceDict(res["XObject"])
	if err != nil {
		return err
	}
	if xo == nil {
		xo = types.Dict{}
		res["XObject"] = xo
	}
	for k, v := range xobjects {
		xo[k] = v
	}
	return nil
}

// wrapContent encloses the page's content in q and Q, so that a
// transformation it leaves behind does not move the drawing, and appends
// draw.
func wrapContent(xt *model.XRefTable, page types.Dict, draw []byte) error {
	var parts types.Array
	if o, ok := page.Find("Contents"); ok {
		o, err := xt.Dereference(o)
		if err != nil {
			return err
		}
		if a, ok := o.(types.Array); ok {
			parts = append(parts, a...)
		} else {
			parts = append(parts, page["Contents"])
		}
	}
	pre, err := newContent(xt, []byte("q\n"))
	if err != nil {
		return err
	}
	post, err := newContent(xt, append([]byte("\nQ\n"), draw...))
	if err != nil {
		return err
	}
	page["Contents"] = append(append(types.Array{*pre}, parts...), *post)
	return nil
}

func newContent(xt *model.XRefTable, b []byte) (*types.IndirectRef, error) {
	sd, err := xt.NewStreamDictForBuf(b)
	if err != nil {
		return nil, err
	}
	if err := sd.Encode(); err != nil {
		return nil, err
	}
	return xt.IndRefForNewObject(*sd)
}
