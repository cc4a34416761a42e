package lo

import (
	"archive/zip"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestNoLinkedContent converts documents (HTML, flat ODT, DOCX, RTF) that
// link an image on a loopback HTTP server run by the test and an image
// file on disk. With the hardened profile no request reaches the server
// and no image reaches the PDF. The same documents through a profile at
// LibreOffice's defaults, without the RTF neutralising, do fetch them,
// which shows the documents test something.
func TestNoLinkedContent(t *testing.T) {
	hardened := sharedPool.get(t).Instances()[0]
	var (
		mu   sync.Mutex
		hits = map[string]int{}
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngBytes(t))
	}))
	defer srv.Close()
	dir := t.TempDir()
	local := filepath.Join(dir, "local.png")
	if err := os.WriteFile(local, pngBytes(t), 0o600); err != nil {
		t.Fatal(err)
	}
	docs := linkingDocs(t, dir, srv.URL, (&url.URL{Scheme: "file", Path: local}).String())

	imageRE := regexp.MustCompile(`/Subtype\s*/Image`)
	convert := func(inst *Instance, label string) (images map[string]int) {
		images = map[string]int{}
		for kind, doc := range docs {
			out := filepath.Join(dir, label+"-"+kind+".pdf")
			if err := inst.Convert(t.Context(), doc, out, ConvertOptions{}); err != nil {
				t.Fatalf("%s: Convert(%s) = %v", label, kind, err)
			}
			images[kind] = len(imageRE.FindAll(checkPDF(t, out, 1), -1))
		}
		return images
	}
	requests := func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		got := hits
		hits = map[string]int{}
		return got
	}

	images := convert(hardened, "hardened")
	if got := requests(); len(got) != 0 {
		t.Errorf("hardened profile: the loopback server got requests %v, want none", got)
	}
	for kind, n := range images {
		if n != 0 {
			t.Errorf("hardened profile: %s gave a PDF with %d images, want none (the linked local file)", kind, n)
		}
	}

	control, err := New(t.Context(), Options{Instances: 1, StateDir: t.TempDir(), noHardening: true})
	if err != nil {
		t.Fatal(err)
	}
	defer control.Close()
	images = convert(control.Instances()[0], "control")
	got := requests()
	for kind := range docs {
		// LibreOffice 7.4 fetches no http image for RTF's INCLUDEPICTURE,
		// only local files.
		if got["/"+kind+".png"] == 0 && kind != "rtf" {
			t.Errorf("default profile: %s fetched nothing (requests %v): the test document proves nothing", kind, got)
		}
		if images[kind] == 0 {
			t.Errorf("default profile: %s embedded no local image: the test document proves nothing", kind)
		}
	}
}

// linkingDocs writes documents of several kinds that each link the image
// remote+"/KIND.png" and the local image at localURL, and returns their
// paths by kind.
func linkingDocs(t *testing.T, dir, remote, localURL string) map[string]string {
	t.Helper()
	docs := map[string]string{
		"html": filepath.Join(dir, "link.html"),
		"fodt": filepath.Join(dir, "link.fodt"),
		"docx": filepath.Join(dir, "link.docx"),
		"rtf":  filepath.Join(dir, "link.rtf"),
	}
	html := fmt.Sprintf(`<html><body><p>remote</p><img src="%s/html.png" width="40" height="40"><p>local</p><img src="%s" width="40" height="40"></body></html>`,
		remote, localURL)
	frame := `<draw:frame draw:name="%s" text:anchor-type="as-char" svg:width="1cm" svg:height="1cm"><draw:image xlink:href="%s" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>`
	fodt := `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:body><office:text><text:p>linked images ` + fmt.Sprintf(frame, "remote", remote+"/fodt.png") + fmt.Sprintf(frame, "local", localURL) + `</text:p></office:text></office:body></office:document>`
	rtf := fmt.Sprintf(`{\rtf1\ansi {\field{\*\fldinst INCLUDEPICTURE "%s/rtf.png" \\d}{\fldrslt x}}\par {\field{\*\fldinst INCLUDEPICTURE "%s" \\d}{\fldrslt y}}\par}`,
		remote, localURL)
	for kind, content := range map[string]string{"html": html, "fodt": fodt, "rtf": rtf} {
		if err := os.WriteFile(docs[kind], []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(docs["docx"], linkingDOCX(t, remote+"/docx.png", localURL), 0o600); err != nil {
		t.Fatal(err)
	}
	return docs
}

// linkingDOCX is a DOCX with two external images (r:link, TargetMode
// External) and an INCLUDEPICTURE field.
func linkingDOCX(t *testing.T, remote, local string) []byte {
	t.Helper()
	pic := func(id int, rel string) string {
		return fmt.Sprintf(`<w:p><w:r><w:drawing><wp:inline><wp:extent cx="360000" cy="360000"/><wp:docPr id="%d" name="p%d"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="%d" name="p%d.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="%s"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="360000" cy="360000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`,
			id, id, id, id, rel)
	}
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/_rels/document.xml.rels", fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdRemote" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="%s" TargetMode="External"/><Relationship Id="rIdLocal" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="%s" TargetMode="External"/></Relationships>`,
			xmlEscape(remote), xmlEscape(local))},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body><w:p><w:r><w:t>linked images</w:t></w:r></w:p>` +
			pic(1, "rIdRemote") + pic(2, "rIdLocal") +
			`<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDEPICTURE "` + xmlEscape(strings.TrimSuffix(remote, ".png")) + `-field.png" \d </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>x</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:body></w:document>`},
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, p := range parts {
		w, err := z.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(p.body))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngBytes(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 40, 40))
	for x := range 40 {
		for y := range 40 {
			img.Set(x, y, color.RGBA{200, byte(x * 6), byte(y * 6), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Error(err)
	}
	return b.Bytes()
}

// TestNoMacros converts a document whose load event runs a Basic macro
// that would write a file. No file appears. (LibreOffice 7.4's
// --convert-to did not run it with LibreOffice's default settings either,
// so this guards against a regression rather than proving the settings.)
func TestNoMacros(t *testing.T) {
	inst := sharedPool.get(t).Instances()[1]
	dir := t.TempDir()
	witness := filepath.Join(dir, "macro-ran")
	doc := filepath.Join(dir, "macro.fodt")
	fodt := `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" xmlns:ooo="http://openoffice.org/2004/office" xmlns:dom="http://www.w3.org/2001/xml-events" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:scripts><office:script script:language="ooo:Basic"><ooo:libraries><ooo:library-embedded ooo:name="Standard"><ooo:module ooo:name="Module1"><ooo:source-code>Sub Main
Open "` + witness + `" For Output As #1
Print #1, "ran"
Close #1
End Sub
</ooo:source-code></ooo:module></ooo:library-embedded></ooo:libraries></office:script>
<office:event-listeners><script:event-listener script:language="ooo:script" script:event-name="dom:load" xlink:href="vnd.sun.star.script:Standard.Module1.Main?language=Basic&amp;location=document" xlink:type="simple"/></office:event-listeners></office:scripts>
<office:body><office:text><text:p>a document with a macro on load</text:p></office:text></office:body></office:document>`
	if err := os.WriteFile(doc, []byte(fodt), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := inst.Convert(t.Context(), doc, filepath.Join(dir, "macro.pdf"), ConvertOptions{}); err != nil {
		t.Fatalf("Convert = %v", err)
	}
	if _, err := os.Stat(witness); !os.IsNotExist(err) {
		t.Errorf("the document's macro ran: stat %s = %v", witness, err)
	}
}

// TestProfileSettings: the hardening is in the profile LibreOffice runs
// with, after LibreOffice has rewritten the file at start-up.
func TestProfileSettings(t *testing.T) {
	inst := sharedPool.get(t).Instances()[0]
	b, err := os.ReadFile(inst.l.registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range hardening {
		re := regexp.MustCompile(regexp.QuoteMeta(`oor:path="`+xmlEscape(s.path)+`"><prop oor:name="`+s.prop+`"`) + `[^>]*>(<value>` + regexp.QuoteMeta(xmlEscape(s.value)) + `</value>|<value/>)`)
		if !re.Match(b) {
			t.Errorf("profile lacks %s/%s = %q", s.path, s.prop, s.value)
		}
	}
}
