package pdf

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
)

// formJSON is a one-page pdfcpu form: a filled text field, a checked and
// an unchecked check box.
const formJSON = `{
	"paper": "A4P", "origin": "LowerLeft",
	"fonts": {"input": {"name": "Helvetica", "size": 12}},
	"pages": {"1": {"content": {
		"text": [{"value": "Form page", "pos": [50, 780], "font": {"name": "Helvetica", "size": 12}}],
		"textfield": [{"id": "name", "value": "Zed Flattened", "pos": [100, 700], "width": 200, "font": {"name": "$input"}}],
		"checkbox": [{"id": "agree", "value": true, "pos": [100, 650], "width": 12}, {"id": "spam", "value": false, "pos": [100, 630], "width": 12}]
	}}}
}`

// makeForm writes formJSON's PDF in dir.
func makeForm(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "form.pdf")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := api.Create(nil, strings.NewReader(formJSON), f, newConf("")); err != nil {
		t.Fatalf("create the form: %v", err)
	}
	return path
}

func formFields(t *testing.T, path string) []string {
	t.Helper()
	f := openFile(t, path)
	fields, err := api.ListFormFields(f, newConf(""))
	if err != nil && !strings.Contains(err.Error(), "no form") {
		t.Fatalf("ListFormFields: %v", err)
	}
	return fields
}

func TestApplyFlatten(t *testing.T) {
	dir := t.TempDir()
	form := makeForm(t, dir)
	if len(formFields(t, form)) == 0 {
		t.Fatal("the test form has no fields")
	}
	before, err := Text(form, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(before, "Zed Flattened") {
		t.Fatalf("the field's value is already page content: %q", before)
	}
	out := filepath.Join(dir, "flat.pdf")
	if err := Apply(context.Background(), form, out, Post{Flatten: true}); err != nil {
		t.Fatal(err)
	}
	if fields := formFields(t, out); len(fields) != 0 {
		t.Errorf("form fields after flattening: %q", fields)
	}
	text, err := Text(out, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Form page") || !strings.Contains(text, "Zed Flattened") {
		t.Errorf("text after flattening = %q, want the page's text and the field's value", text)
	}
	pc, err := readContext(out, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	page, _, _, err := pc.PageDict(1, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := page.Find("Annots"); ok {
		t.Errorf("page 1 still has annotations: %v", page["Annots"])
	}
	root, err := pc.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := root.Find("AcroForm"); ok {
		t.Error("the catalog still has an AcroForm")
	}
}

// TestFlattenWithoutAppearance removes the text field's appearance, as a
// form left for the viewer to draw (NeedAppearances) has none: pdfcpu
// cannot draw the value, so flattening fails, naming the field, rather
// than losing it.
func TestFlattenWithoutAppearance(t *testing.T) {
	dir := t.TempDir()
	pc, err := readContext(makeForm(t, dir), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	page, _, _, err := pc.PageDict(1, false)
	if err != nil {
		t.Fatal(err)
	}
	annots, err := pc.DereferenceArray(page["Annots"])
	if err != nil {
		t.Fatal(err)
	}
	stripped := 0
	for _, a := range annots {
		d, err := pc.DereferenceDict(a)
		if err != nil {
			t.Fatal(err)
		}
		if name, _ := infoValue(pc.XRefTable, d["T"]); name == "name" {
			d.Delete("AP")
			stripped++
		}
	}
	if stripped != 1 {
		t.Fatalf("found %d text fields called name, want 1", stripped)
	}
	in := filepath.Join(dir, "bare.pdf")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.WriteContext(pc, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "flat.pdf")
	err = Apply(context.Background(), in, out, Post{Flatten: true})
	if err == nil || !strings.Contains(err.Error(), `"name"`) {
		t.Fatalf("Apply = %v, want an error naming the field", err)
	}
	mustNotExist(t, out)
}
