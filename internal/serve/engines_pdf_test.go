package serve

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"calq/convert/pdf"
	"calq/internal/pdfgen"
)

// part is one part of a multipart form, in order: a field when name is
// empty, else a file.
type part struct {
	field, name, value string
}

// postParts sends parts, in order and repeated as given, to url.
func postParts(t *testing.T, url string, parts []part) *http.Response {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		if p.name == "" {
			mw.WriteField(p.field, p.value)
			continue
		}
		w, err := mw.CreateFormFile(p.field, p.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(p.value))
	}
	mw.Close()
	resp, err := http.Post(url, mw.FormDataContentType(), &b)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// pdfs are the PDFs of a reply, by name: the PDF itself (named "") or
// a zip's entries.
func pdfs(t *testing.T, resp *http.Response, b []byte) map[string]string {
	t.Helper()
	if resp.Header.Get("Content-Type") == contentTypePDF {
		return map[string]string{"": pdfFile(t, b)}
	}
	names, content := zipEntries(t, b)
	out := map[string]string{}
	for _, n := range names {
		out[n] = pdfFile(t, content[n])
	}
	return out
}

func bookmarksOf(t *testing.T, path string) []pdf.Bookmark {
	t.Helper()
	bms, err := pdf.ReadBookmarks(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return bms
}

// TestPDFEnginesConformance: the pdfengines routes and fields of
// bookmarks, attached files, several watermarks and stamps, and the
// metadata checks, each seen in the PDF the reply holds.
func TestPDFEnginesConformance(t *testing.T) {
	ts := newTestServer(t, nil)
	threeBytes, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "pages_3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	three := string(threeBytes)
	png := string(fileUpload(t, filepath.Join(repoTestdata, "convert", "samples", "testPNG.png")).content)
	heavy := imageHeavyPDF(t)
	iccHeavy := iccImagePDF(t)
	index := []pdf.Bookmark{{Title: "Index", Page: 1, Children: []pdf.Bookmark{{Title: "Sub-index", Page: 2}}}}
	tests := []struct {
		name   string
		route  string
		parts  []part
		status int
		check  func(t *testing.T, resp *http.Response, b []byte)
	}{
		{"bookmarks/write a list", "bookmarks/write", []part{{"files", "a.pdf", three},
			{"bookmarks", "", `[{"title":"Index","page":1,"children":[{"title":"Sub-index","page":2}]}]`}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				if got := bookmarksOf(t, pdfs(t, resp, b)[""]); !reflect.DeepEqual(got, index) {
					t.Errorf("got bookmarks %+v, want %+v", got, index)
				}
			}},
		{"bookmarks/write by file", "bookmarks/write", []part{{"files", "a.pdf", three}, {"files", "b.pdf", three},
			{"bookmarks", "", `{"b.pdf":[{"title":"Only b","page":3}]}`}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				got := pdfs(t, resp, b)
				if bms := bookmarksOf(t, got["a.pdf"]); len(bms) != 0 {
					t.Errorf("a.pdf: got bookmarks %+v, want none", bms)
				}
				if bms, want := bookmarksOf(t, got["b.pdf"]), []pdf.Bookmark{{Title: "Only b", Page: 3}}; !reflect.DeepEqual(bms, want) {
					t.Errorf("b.pdf: got bookmarks %+v, want %+v", bms, want)
				}
			}},
		{"bookmarks/write names no file", "bookmarks/write", []part{{"files", "a.pdf", three},
			{"bookmarks", "", `{"c.pdf":[{"title":"X","page":1}]}`}}, 400, wantBody(`"c.pdf" names no uploaded PDF`)},
		{"bookmarks/write without bookmarks", "bookmarks/write", []part{{"files", "a.pdf", three}}, 400,
			wantBody("form field 'bookmarks' is required")},
		{"bookmarks/write not JSON", "bookmarks/write", []part{{"files", "a.pdf", three}, {"bookmarks", "", "foo"}}, 400,
			wantBody("form field 'bookmarks' is invalid (got 'foo'")},
		{"bookmarks/write newline in a title", "bookmarks/write", []part{{"files", "a.pdf", three},
			{"bookmarks", "", `[{"title":"A\nB","page":1}]`}}, 400, wantBody("control characters")},
		{"bookmarks/write past the end", "bookmarks/write", []part{{"files", "a.pdf", three},
			{"bookmarks", "", `[{"title":"A","page":9}]`}}, 400, wantBody("past the document's end (3 pages)")},
		{"bookmarks/read none", "bookmarks/read", []part{{"files", "a.pdf", three}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				if got := strings.TrimSpace(string(b)); got != `{"a.pdf":[]}` || resp.Header.Get("Content-Type") != contentTypeJSON {
					t.Errorf("got %s (%s), want {\"a.pdf\":[]} as JSON", got, resp.Header.Get("Content-Type"))
				}
			}},
		{"merge with bookmarks", "merge", []part{{"files", "a.pdf", three}, {"files", "b.pdf", three},
			{"bookmarks", "", `[{"title":"Second","page":4}]`}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				if got, want := bookmarksOf(t, pdfs(t, resp, b)[""]), []pdf.Bookmark{{Title: "Second", Page: 4}}; !reflect.DeepEqual(got, want) {
					t.Errorf("got bookmarks %+v, want %+v", got, want)
				}
			}},
		{"embed two files", "embed", []part{{"files", "a.pdf", three}, {"embeds", "invoice.xml", "<i/>"}, {"embeds", "data.csv", "a,b\n"},
			{"embedsMetadata", "", `{"invoice.xml":{"mimeType":"text/xml","relationship":"Alternative"}}`}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				out := pdfs(t, resp, b)[""]
				if names := attachmentNames(t, out); !slices.Equal(names, []string{"data.csv", "invoice.xml"}) {
					t.Errorf("got attachments %q, want data.csv and invoice.xml", names)
				}
				raw, _ := os.ReadFile(out)
				if !bytes.Contains(raw, []byte("/AFRelationship/Alternative")) && !bytes.Contains(raw, []byte("/AFRelationship /Alternative")) {
					t.Error("no /AFRelationship /Alternative in the PDF")
				}
			}},
		{"libreoffice/convert with embeds", "libreoffice/convert", []part{{"files", "letter.txt", "Dear reader,\nhello."},
			{"embeds", "invoice.xml", "<i/>"}, {"embeds", "data.csv", "a,b\n"}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				if got := attachmentNames(t, pdfs(t, resp, b)[""]); !slices.Equal(got, []string{"data.csv", "invoice.xml"}) {
					t.Errorf("got attachments %q, want data.csv and invoice.xml", got)
				}
			}},
		{"embed metadata for no file", "embed", []part{{"files", "a.pdf", three}, {"embeds", "a.xml", "<a/>"},
			{"embedsMetadata", "", `{"b.xml":{"relationship":"Data"}}`}}, 400, wantBody("'b.xml' names no file uploaded as embeds")},
		{"embed a bad relationship", "embed", []part{{"files", "a.pdf", three}, {"embeds", "a.xml", "<a/>"},
			{"embedsMetadata", "", `{"a.xml":{"relationship":"Friend"}}`}}, 400, wantBody("want one of Source")},
		{"several watermarks", "watermark", []part{{"files", "a.pdf", three},
			{"watermarkSource", "", "text"}, {"watermarkExpression", "", "MARKONE"}, {"watermarkOptions", "", `{"rotation":"0","position":"tl","scale":"0.2 abs"}`},
			{"watermarkSource", "", "text"}, {"watermarkExpression", "", "MARKTWO"}, {"watermarkOptions", "", `{"rotation":"0","position":"br","scale":"0.2 abs"}`},
			{"watermarkSource", "", "image"}, {"watermark", "w.png", png}}, 200, wantText("MARKONE", "MARKTWO")},
		{"several stamps", "stamp", []part{{"files", "a.pdf", three},
			{"stampSource", "", "text"}, {"stampExpression", "", "STAMPONE"}, {"stampSource", "", "text"}, {"stampExpression", "", "STAMPTWO"}},
			200, wantText("STAMPONE", "STAMPTWO")},
		{"an image watermark without its file", "watermark", []part{{"files", "a.pdf", three},
			{"watermarkSource", "", "text"}, {"watermarkExpression", "", "A"}, {"watermarkSource", "", "image"}}, 400,
			wantBody("a watermark file is required for image or pdf source")},
		{"optimize an image-heavy PDF", "optimize", []part{{"files", "heavy.pdf", heavy}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				if len(b)*3 > len(heavy) || pages(t, pdfs(t, resp, b)[""]) != 2 {
					t.Errorf("got %d bytes from %d, want under a third, and 2 pages", len(b), len(heavy))
				}
			}},
		{"optimize with imageQuality and maxImageResolution", "optimize", []part{{"files", "heavy.pdf", heavy},
			{"imageQuality", "", "40"}, {"maxImageResolution", "", "75"}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				if len(b)*10 > len(heavy) {
					t.Errorf("got %d bytes from %d, want under a tenth", len(b), len(heavy))
				}
			}},
		{"optimize an ICC-based image, as Chromium writes it", "optimize", []part{{"files", "icc.pdf", iccHeavy}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				if len(b)*3 > len(iccHeavy) || pages(t, pdfs(t, resp, b)[""]) != 1 {
					t.Errorf("got %d bytes from %d, want under a third, and 1 page", len(b), len(iccHeavy))
				}
			}},
		{"merge with optimizeImages and imageQuality", "merge", []part{{"files", "icc.pdf", iccHeavy}, {"files", "b.pdf", three},
			{"optimizeImages", "", "true"}, {"imageQuality", "", "40"}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				if len(b)*3 > len(iccHeavy) || pages(t, pdfs(t, resp, b)[""]) != 4 {
					t.Errorf("got %d bytes from %d, want under a third, and 4 pages", len(b), len(iccHeavy))
				}
			}},
		{"optimize with imageQuality 200", "optimize", []part{{"files", "heavy.pdf", heavy}, {"imageQuality", "", "200"}}, 400,
			wantBody("form field 'imageQuality' is invalid")},
		{"metadata with a forged line", "metadata/write", []part{{"files", "a.pdf", three},
			{"metadata", "", `{"Title":"Sample\nAuthor: Mallory"}`}}, 400, wantBody(`"Title"`)},
		{"metadata with a forged custom line", "metadata/write", []part{{"files", "a.pdf", three},
			{"metadata", "", `{"Company":"ACME\r\nTitle: forged"}`}}, 400, wantBody(`"Company"`)},
		{"metadata Marked", "metadata/write", []part{{"files", "a.pdf", three},
			{"metadata", "", `{"Marked":true,"PDFVersion":1.7,"Title":"T"}`}}, 200,
			func(t *testing.T, resp *http.Response, b []byte) {
				m, err := pdf.ReadMetadata(context.Background(), pdfs(t, resp, b)[""])
				if err != nil || m["Marked"] != "true" || m["Title"] != "T" {
					t.Errorf("got metadata %v (%v), want Marked true and Title T", m, err)
				}
			}},
		{"metadata Marked not a boolean", "metadata/write", []part{{"files", "a.pdf", three},
			{"metadata", "", `{"Marked":"yes"}`}}, 400, wantBody("Marked")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, b := postRoute(t, ts.URL, tt.route, tt.parts, tt.status)
			tt.check(t, resp, b)
		})
	}
}

// wantBody checks that an error's body says want.
func wantBody(want string) func(t *testing.T, resp *http.Response, b []byte) {
	return func(t *testing.T, resp *http.Response, b []byte) {
		if !strings.Contains(string(b), want) {
			t.Errorf("got body %q, want it to say %q", b, want)
		}
	}
}

// wantText checks that page 1 of the reply's PDF shows each of texts.
func wantText(texts ...string) func(t *testing.T, resp *http.Response, b []byte) {
	return func(t *testing.T, resp *http.Response, b []byte) {
		text, err := pdf.Text(pdfs(t, resp, b)[""], "")
		if err != nil {
			t.Fatal(err)
		}
		page := strings.Split(text, "\f")[0]
		for _, want := range texts {
			if !strings.Contains(page, want) {
				t.Errorf("page 1 %q: want %s on it", page, want)
			}
		}
	}
}

// imageHeavyPDF is a PDF of two large grainy pictures, stored
// losslessly as pdfcpu stores PNGs: most of its bytes are image samples.
func imageHeavyPDF(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var pngs []string
	for i := range 2 {
		img := image.NewNRGBA(image.Rect(0, 0, 1000, 700))
		r := rand.New(rand.NewPCG(uint64(i), 1))
		for j := range img.Pix {
			img.Pix[j] = uint8(j/4%1000/4) + uint8(r.IntN(24))
			if j%4 == 3 {
				img.Pix[j] = 255
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("%d.png", i))
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		pngs = append(pngs, path)
	}
	out := filepath.Join(dir, "heavy.pdf")
	if err := pdf.FromImages(context.Background(), pngs, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// iccImagePDF is a page of one grainy picture with an ICC-based colour
// space, stored losslessly, as Chromium writes a page with a PNG on it.
func iccImagePDF(t *testing.T) string {
	t.Helper()
	const w, h = 640, 480
	r := rand.New(rand.NewPCG(3, 1))
	samples := make([]byte, 3*w*h)
	for i := range samples {
		samples[i] = uint8(i/3%w/3) + uint8(r.IntN(24))
	}
	var img, icc bytes.Buffer
	for _, s := range []struct {
		b    *bytes.Buffer
		data []byte
	}{{&img, samples}, {&icc, []byte("a profile readers do not understand: they use /Alternate")}} {
		z := zlib.NewWriter(s.b)
		z.Write(s.data)
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
	}
	content := "q 612 0 0 459 0 333 cm /X4 Do Q"
	var b bytes.Buffer
	err := pdfgen.Objects(&b, "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /X4 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /BitsPerComponent 8 /ColorSpace [/ICCBased 6 0 R] /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream",
			w, h, img.Len(), img.Bytes()),
		fmt.Sprintf("<< /N 3 /Alternate /DeviceRGB /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", icc.Len(), icc.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// attachmentNames are the sorted names of the files attached to a PDF.
func attachmentNames(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	aa, err := api.Attachments(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range aa {
		names = append(names, a.FileName)
	}
	slices.Sort(names)
	return names
}
