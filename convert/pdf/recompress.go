package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math"

	"golang.org/x/image/draw"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Images is the raster-image step of the optimisation: every 8-bit RGB or
// grey image (Flate-compressed, uncompressed or JPEG) is re-encoded as a
// JPEG of Quality (1 to 100), first scaled down, when MaxResolution is
// set, to at most that many pixels per inch of the PDF's largest page
// (an image is not drawn larger than its page); an image is replaced only
// when the result is smaller. Masks, CMYK, indexed, 16-bit images and
// images with a /Decode array are left as they are.
type Images struct {
	Quality       int
	MaxResolution int `json:",omitempty"`
}

// maxImagePixels bounds the images Images decodes: a larger one is left
// as it is rather than held in memory.
const maxImagePixels = 16 << 20

func (o *Images) check() error {
	switch {
	case o.Quality < 1 || o.Quality > 100:
		return &FieldError{Field: "imageQuality", Value: fmt.Sprint(o.Quality), Err: errors.New("want 1 to 100")}
	case o.MaxResolution < 0:
		return &FieldError{Field: "maxImageResolution", Value: fmt.Sprint(o.MaxResolution), Err: errors.New("want a positive number of pixels per inch")}
	}
	return nil
}

// apply re-encodes the images of the PDF read from rs.
func (o *Images) apply(rs io.ReadSeeker, w io.Writer) error {
	ctx, err := readFrom(rs, "", model.OPTIMIZE)
	if err != nil {
		return err
	}
	maxSide := 0
	if o.MaxResolution > 0 {
		maxSide = int(math.Ceil(largestPageSide(ctx) / 72 * float64(o.MaxResolution)))
	}
	masks := softMasks(ctx)
	for nr, entry := range ctx.Table {
		if entry == nil || entry.Free || masks[nr] {
			continue
		}
		sd, ok := entry.Object.(types.StreamDict)
		if !ok || !isPlainImage(sd) {
			continue
		}
		if smaller, ok := o.recompress(sd, maxSide); ok {
			entry.Object = smaller
		}
	}
	return api.WriteContext(ctx, w)
}

// softMasks are the object numbers of the images' soft masks, which
// stay lossless: a JPEG's ringing would show in the transparency.
func softMasks(ctx *model.Context) map[int]bool {
	masks := map[int]bool{}
	for _, entry := range ctx.Table {
		if entry == nil || entry.Free {
			continue
		}
		if sd, ok := entry.Object.(types.StreamDict); ok {
			if ir := sd.IndirectRefEntry("SMask"); ir != nil {
				masks[ir.ObjectNumber.Value()] = true
			}
		}
	}
	return masks
}

// largestPageSide is the longest side of the PDF's pages, in points.
func largestPageSide(ctx *model.Context) float64 {
	dims, err := ctx.PageDims()
	if err != nil {
		return 0
	}
	side := 0.0
	for _, d := range dims {
		side = max(side, d.Width, d.Height)
	}
	return side
}

// isPlainImage says whether sd is an image Images can re-encode.
func isPlainImage(sd types.StreamDict) bool {
	if t := sd.Subtype(); t == nil || *t != "Image" {
		return false
	}
	if m := sd.BooleanEntry("ImageMask"); m != nil && *m {
		return false
	}
	if bpc := sd.IntEntry("BitsPerComponent"); bpc == nil || *bpc != 8 {
		return false
	}
	if _, found := sd.Find("Decode"); found {
		return false
	}
	if components(sd) == 0 {
		return false
	}
	switch len(sd.FilterPipeline) {
	case 0:
		return true
	case 1:
		f := sd.FilterPipeline[0].Name
		return f == "FlateDecode" || f == "DCTDecode"
	}
	return false
}

// components is the number of colour components of sd's colour space,
// 1 or 3, or 0 for one Images leaves alone.
func components(sd types.StreamDict) int {
	switch cs := sd.NameEntry("ColorSpace"); {
	case cs == nil:
		return 0
	case *cs == "DeviceRGB":
		return 3
	case *cs == "DeviceGray":
		return 1
	}
	return 0
}

// recompress returns sd as a JPEG, scaled to maxSide pixels on its longer
// side (0: not scaled), when that is smaller than sd.
func (o *Images) recompress(sd types.StreamDict, maxSide int) (types.StreamDict, bool) {
	img, ok := decodeImage(sd)
	if !ok {
		return sd, false
	}
	if b := img.Bounds(); maxSide > 0 && max(b.Dx(), b.Dy()) > maxSide {
		img = scale(img, maxSide)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: o.Quality}); err != nil || buf.Len() >= len(sd.Raw) {
		return sd, false
	}
	b := img.Bounds()
	out := types.StreamDict{Dict: sd.Dict.Clone().(types.Dict), Raw: buf.Bytes(),
		FilterPipeline: []types.PDFFilter{{Name: "DCTDecode"}}}
	out.Update("Width", types.Integer(b.Dx()))
	out.Update("Height", types.Integer(b.Dy()))
	out.Update("Filter", types.Name("DCTDecode"))
	out.Delete("DecodeParms")
	n := int64(buf.Len())
	out.StreamLength = &n
	out.Update("Length", types.Integer(n))
	return out, true
}

// decodeImage decodes an image isPlainImage accepted.
func decodeImage(sd types.StreamDict) (image.Image, bool) {
	w, h := sd.IntEntry("Width"), sd.IntEntry("Height")
	if w == nil || h == nil || *w < 1 || *h < 1 || int64(*w)*int64(*h) > maxImagePixels {
		return nil, false
	}
	if len(sd.FilterPipeline) == 1 && sd.FilterPipeline[0].Name == "DCTDecode" {
		img, err := jpeg.Decode(bytes.NewReader(sd.Raw))
		return img, err == nil
	}
	if err := sd.Decode(); err != nil {
		return nil, false
	}
	r := image.Rect(0, 0, *w, *h)
	if n := components(sd); n == 1 {
		if len(sd.Content) < *w**h {
			return nil, false
		}
		return &image.Gray{Pix: sd.Content, Stride: *w, Rect: r}, true
	}
	if len(sd.Content) < 3**w**h {
		return nil, false
	}
	img := image.NewRGBA(r)
	for i, j := 0, 0; j < len(img.Pix); i, j = i+3, j+4 {
		img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = sd.Content[i], sd.Content[i+1], sd.Content[i+2], 0xff
	}
	return img, true
}

// scale shrinks img to side pixels on its longer side, grey staying grey.
func scale(img image.Image, side int) image.Image {
	b := img.Bounds()
	f := float64(side) / float64(max(b.Dx(), b.Dy()))
	r := image.Rect(0, 0, max(1, int(float64(b.Dx())*f)), max(1, int(float64(b.Dy())*f)))
	var dst draw.Image = image.NewRGBA(r)
	if _, grey := img.(*image.Gray); grey {
		dst = image.NewGray(r) // the colour space stays DeviceGray
	}
	draw.ApproxBiLinear.Scale(dst, r, img, b, draw.Src, nil)
	return dst
}
