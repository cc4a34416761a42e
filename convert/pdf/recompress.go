package pdf

import (
	"bytes"
	"context"
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

// Images is the raster-image step of the optimisation: every 8- or 16-bit
// RGB or grey image (device, calibrated or ICC-based colour; stored
// uncompressed, losslessly compressed or as a JPEG; on a page or in a
// form) is re-encoded as an 8-bit JPEG of Quality (1 to 100), first scaled
// down, when MaxResolution is set, to at most that many pixels per inch
// of the PDF's largest page (an image is not drawn larger than its page);
// an image is replaced only when the result is smaller. Its colour space,
// decode array and soft mask stay. Masks, colour-key masked, CMYK, Lab,
// indexed and separation images are left as they are (see kindOf).
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

// apply is the step re-encoding the images of the PDF read from rs; it
// stops, writing nothing, as soon as job ends (checked between images).
func (o *Images) apply(job context.Context) func(rs io.ReadSeeker, w io.Writer) error {
	return func(rs io.ReadSeeker, w io.Writer) error {
		ctx, err := readFrom(rs, "", model.OPTIMIZE)
		if err != nil {
			return err
		}
		if err := o.recompressAll(job, ctx); err != nil {
			return err
		}
		return api.WriteContext(ctx, w)
	}
}

// recompressAll replaces the images of ctx that recompress makes smaller.
func (o *Images) recompressAll(job context.Context, ctx *model.Context) error {
	maxSide := 0
	if o.MaxResolution > 0 {
		maxSide = int(math.Ceil(largestPageSide(ctx) / 72 * float64(o.MaxResolution)))
	}
	masks := softMasks(ctx)
	for nr, entry := range ctx.Table {
		if err := job.Err(); err != nil {
			return err
		}
		if entry == nil || entry.Free || masks[nr] {
			continue
		}
		sd, ok := entry.Object.(types.StreamDict)
		if !ok {
			continue
		}
		k, ok := kindOf(ctx, sd)
		if !ok {
			continue
		}
		if smaller, ok := o.recompress(sd, k, maxSide); ok {
			entry.Object = smaller
		}
	}
	return nil
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

// recompress returns sd as a JPEG, scaled to maxSide pixels on its longer
// side (0: not scaled), when that is smaller than sd.
func (o *Images) recompress(sd types.StreamDict, k imageKind, maxSide int) (types.StreamDict, bool) {
	img, ok := decodeImage(sd, k)
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
	out.Update("BitsPerComponent", types.Integer(8))
	out.Update("Filter", types.Name("DCTDecode"))
	out.Delete("DecodeParms")
	n := int64(buf.Len())
	out.StreamLength = &n
	out.Update("Length", types.Integer(n))
	return out, true
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
