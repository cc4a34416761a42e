package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"calq/internal/pdfgen"
	"calq/internal/tooltest"
)

// samples are img's RGB samples (or grey, the green one), 8 or 16 bits
// each, rows prefixed with a PNG predictor's "none" byte when predicted.
func samples(img image.Image, grey bool, bpc int, predicted bool) []byte {
	var out []byte
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		if predicted {
			out = append(out, 0)
		}
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			vs := []uint32{r, g, bl}
			if grey {
				vs = []uint32{g}
			}
			for _, v := range vs {
				if out = append(out, byte(v>>8)); bpc == 16 {
					out = append(out, byte(v))
				}
			}
		}
	}
	return out
}

func jpegOf(t *testing.T, img image.Image, quality int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imageKindCase is an image of the test PDF, named by its /Name entry,
// and whether Images should re-encode it.
type imageKindCase struct {
	name    string
	dict    string // its entries but /Name, /Length and /Filter
	data    []byte
	filters []string
	recoded bool
}

// imageKindsPDF is a page of the cases' images, the last drawn through a
// form XObject, in a 3×4 grid; objects 1 to 5 are the catalog, pages,
// page, its content and an ICC profile (of 3 components).
func imageKindsPDF(t *testing.T, cases []imageKindCase) []byte {
	t.Helper()
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "", "",
		streamObj(t, "/N 3 /Alternate /DeviceRGB", []byte("not a real profile: readers fall back to the alternate"), "FlateDecode")}
	xobjs, content := "", ""
	for i, c := range cases {
		objs = append(objs, streamObj(t, fmt.Sprintf("/Type /XObject /Subtype /Image /Name /%s %s", c.name, c.dict), c.data, c.filters...))
		x, y := 15+195*(i%3), 620-160*(i/3)
		draw := fmt.Sprintf("/Im%d Do", i)
		if i == len(cases)-1 {
			form := fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources << /XObject << /Im%d %d 0 R >> >> /Length %d >>\nstream\n%s\nendstream",
				i, len(objs), len(draw), draw)
			objs = append(objs, form)
			draw = "/Form Do"
			xobjs += fmt.Sprintf("/Form %d 0 R ", len(objs))
		} else {
			xobjs += fmt.Sprintf("/Im%d %d 0 R ", i, len(objs))
		}
		content += fmt.Sprintf("q 180 0 0 135 %d %d cm %s Q\n", x, y, draw)
	}
	objs[2] = fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << %s >> >> >>", xobjs)
	objs[3] = fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
	return generated(t, func(w io.Writer) error { return pdfgen.Objects(w, objs...) })
}

// namedImages are the raw streams of the images of the PDF at path, by
// their /Name.
func namedImages(t *testing.T, path string) map[string]types.StreamDict {
	t.Helper()
	ctx, err := readContext(path, "", model.OPTIMIZE)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]types.StreamDict{}
	for _, e := range ctx.Table {
		if e == nil || e.Free {
			continue
		}
		if sd, ok := e.Object.(types.StreamDict); ok {
			if n := sd.NameEntry("Name"); n != nil {
				got[*n] = sd
			}
		}
	}
	return got
}

// render is the first page of the PDF at path drawn by pdftoppm at dpi.
func render(t *testing.T, path string, dpi int) image.Image {
	t.Helper()
	out := filepath.Join(t.TempDir(), "page")
	cmd := exec.Command(tooltest.Require(t, "pdftoppm"), "-r", fmt.Sprint(dpi), "-png", "-singlefile", path, out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm %s: %v: %s", path, err, b)
	}
	f, err := os.Open(out + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// worstBlock is the largest mean difference of a colour component
// between a and b (0 to 255) over the blocks of side pixels.
func worstBlock(a, b image.Image, side int) float64 {
	r := a.Bounds().Intersect(b.Bounds())
	worst := 0.0
	for y0 := r.Min.Y; y0 < r.Max.Y; y0 += side {
		for x0 := r.Min.X; x0 < r.Max.X; x0 += side {
			sum, n := 0.0, 0
			for y := y0; y < min(y0+side, r.Max.Y); y++ {
				for x := x0; x < min(x0+side, r.Max.X); x++ {
					ar, ag, ab, _ := a.At(x, y).RGBA()
					br, bg, bb, _ := b.At(x, y).RGBA()
					for _, d := range [][2]uint32{{ar, br}, {ag, bg}, {ab, bb}} {
						sum += float64(max(d[0], d[1])-min(d[0], d[1])) / 257
						n++
					}
				}
			}
			worst = max(worst, sum/float64(n))
		}
	}
	return worst
}

// TestImagesKinds: the kinds of images real PDFs carry (ICC-based colour,
// as Chromium writes it, calibrated colour, 16 bits, PNG predictors, JPEGs,
// forms) are re-encoded and the page looks the same; those a JPEG would
// spoil, or that are not what their dictionary says, are left as they are.
func TestImagesKinds(t *testing.T) {
	pic := photo(320, 240, 11)
	small := photo(64, 64, 12)
	cases := []imageKindCase{
		{"ICCRGB", "/Width 320 /Height 240 /BitsPerComponent 8 /ColorSpace [/ICCBased 5 0 R]", samples(pic, false, 8, false), []string{"FlateDecode"}, true},
		{"ICCRGBJPEG", "/Width 320 /Height 240 /BitsPerComponent 8 /ColorSpace [/ICCBased 5 0 R]", jpegOf(t, pic, 100), []string{"DCTDecode"}, true},
		{"CalRGBPredicted", "/Width 320 /Height 240 /BitsPerComponent 8 /ColorSpace [/CalRGB << /WhitePoint [0.9505 1 1.089] >>] /DecodeParms [<< /Predictor 15 /Colors 3 /Columns 320 >>]",
			samples(pic, false, 8, true), []string{"FlateDecode"}, true},
		{"RGB16", "/Width 320 /Height 240 /BitsPerComponent 16 /ColorSpace /DeviceRGB", samples(pic, false, 16, false), []string{"FlateDecode"}, true},
		{"CalGray", "/Width 320 /Height 240 /BitsPerComponent 8 /ColorSpace [/CalGray << /WhitePoint [0.9505 1 1.089] >>]", samples(pic, true, 8, false), []string{"FlateDecode"}, true},
		{"RGBInverted", "/Width 320 /Height 240 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Decode [1 0 1 0 1 0]", samples(photo(320, 240, 14), false, 8, false), []string{"LZWDecode"}, true},
		{"ColourKeyed", "/Width 320 /Height 240 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Mask [0 40 0 40 0 40]", samples(pic, false, 8, false), []string{"FlateDecode"}, false},
		{"LongerThanItsSize", "/Width 64 /Height 64 /BitsPerComponent 8 /ColorSpace /DeviceRGB",
			append(samples(small, false, 8, false), make([]byte, 4<<20)...), []string{"FlateDecode"}, false},
		{"JPEGNotItsSize", "/Width 16 /Height 16 /BitsPerComponent 8 /ColorSpace /DeviceRGB", jpegOf(t, small, 100), []string{"DCTDecode"}, false},
		{"JPEGUntransformed", "/Width 64 /Height 64 /BitsPerComponent 8 /ColorSpace /DeviceRGB /DecodeParms << /ColorTransform 0 >>", jpegOf(t, small, 100), []string{"DCTDecode"}, false},
		{"ICCRGBInForm", "/Width 320 /Height 240 /BitsPerComponent 8 /ColorSpace [/ICCBased 5 0 R]", samples(photo(320, 240, 13), false, 8, false), []string{"ASCII85Decode", "FlateDecode"}, true},
	}
	in := writeTemp(t, imageKindsPDF(t, cases))
	out := filepath.Join(t.TempDir(), "out.pdf")
	if err := Apply(context.Background(), in, out, Post{Images: &Images{Quality: 60}}); err != nil {
		t.Fatal(err)
	}
	was, got := namedImages(t, in), namedImages(t, out)
	for _, c := range cases {
		a, b := was[c.name], got[c.name]
		if recoded := !bytes.Equal(a.Raw, b.Raw); recoded != c.recoded {
			t.Errorf("%s: got re-encoded %v, want %v (%d bytes, then %d)", c.name, recoded, c.recoded, len(a.Raw), len(b.Raw))
			continue
		}
		if f, bpc := b.NameEntry("Filter"), b.IntEntry("BitsPerComponent"); c.recoded && (f == nil || *f != "DCTDecode" || *bpc != 8 || len(b.Raw) >= len(a.Raw)) {
			t.Errorf("%s: got /Filter %v, %d bits, %d bytes from %d, want an 8-bit JPEG, smaller", c.name, f, *bpc, len(b.Raw), len(a.Raw))
		}
	}
	inSize, outSize := fileSize(t, in), fileSize(t, out)
	t.Logf("%d bytes from %d", outSize, inSize)
	if outSize*2 > inSize {
		t.Errorf("got %d bytes from %d, want at most half", outSize, inSize)
	}
	if d := worstBlock(render(t, in, 36), render(t, out, 36), 8); d > 16 {
		t.Errorf("the page's renders differ by up to %.1f (of 255) on a block of 8×8 pixels, want at most 16", d)
	} else {
		t.Logf("renders differ by up to %.1f (of 255) on a block", d)
	}
}

// TestImagesStopsWhenCancelled: the images step of a job that has ended
// stops before re-encoding anything, and writes nothing.
func TestImagesStopsWhenCancelled(t *testing.T) {
	in := imageHeavy(t, t.TempDir(), 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := (&Images{Quality: 80}).apply(ctx)(openFile(t, in), &out)
	if !errors.Is(err, context.Canceled) || out.Len() != 0 {
		t.Errorf("got %v and %d bytes written, want context.Canceled and nothing", err, out.Len())
	}
}
