package pdf

import (
	"bytes"
	"image"
	"image/jpeg"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// imageKind is what Images needs to know of an image XObject it can
// re-encode: its size, its colour components (1 or 3), its bits per
// component (8 or 16) and whether its samples are a JPEG.
type imageKind struct {
	w, h, comps, bpc int
	jpeg             bool
}

// losslessFilters are the filters whose output Images reads as samples.
var losslessFilters = map[string]bool{"FlateDecode": true, "LZWDecode": true,
	"ASCII85Decode": true, "ASCIIHexDecode": true, "RunLengthDecode": true}

// kindOf says whether sd is an image Images can re-encode, and its kind.
// Stencil masks, colour-key masked images (JPEG's losses would move the
// key), CMYK, Lab, indexed and separation images, images of fewer than 8
// bits, JPEGs read without a colour transform, and other filters (JBIG2,
// CCITT, JPEG 2000) are not.
func kindOf(ctx *model.Context, sd types.StreamDict) (imageKind, bool) {
	if t := sd.Subtype(); t == nil || *t != "Image" {
		return imageKind{}, false
	}
	if m := sd.BooleanEntry("ImageMask"); m != nil && *m {
		return imageKind{}, false
	}
	if mask, found := sd.Find("Mask"); found {
		if _, colourKey := deref(ctx, mask).(types.Array); colourKey {
			return imageKind{}, false
		}
	}
	k := imageKind{comps: components(ctx, sd)}
	w, h, bpc := sd.IntEntry("Width"), sd.IntEntry("Height"), sd.IntEntry("BitsPerComponent")
	if w == nil || h == nil || bpc == nil || (*bpc != 8 && *bpc != 16) || k.comps == 0 {
		return imageKind{}, false
	}
	k.w, k.h, k.bpc = *w, *h, *bpc
	if k.w < 1 || k.h < 1 || int64(k.w)*int64(k.h) > maxImagePixels {
		return imageKind{}, false
	}
	fs := sd.FilterPipeline
	if len(fs) == 1 && fs[0].Name == "DCTDecode" {
		k.jpeg = true
		return k, k.bpc == 8 && !untransformed(ctx, sd)
	}
	for _, f := range fs {
		if !losslessFilters[f.Name] {
			return imageKind{}, false
		}
	}
	return k, true
}

// untransformed says whether a JPEG's parameters ask readers not to
// convert its colours from YCbCr (ColorTransform 0), which Go's decoder
// would do anyway for a JPEG without Adobe's marker.
// Its parameters are looked for both as a dictionary and, as they should
// be with a filter array, in an array.
func untransformed(ctx *model.Context, sd types.StreamDict) bool {
	parms, _ := sd.Find("DecodeParms")
	parms = deref(ctx, parms)
	if a, ok := parms.(types.Array); ok && len(a) == 1 {
		parms = deref(ctx, a[0])
	}
	d, _ := parms.(types.Dict)
	ct := d.IntEntry("ColorTransform")
	return ct != nil && *ct == 0
}

// deref is o, or the object it refers to (nil when there is none).
func deref(ctx *model.Context, o types.Object) types.Object {
	d, err := ctx.Dereference(o)
	if err != nil {
		return nil
	}
	return d
}

// components is the number of colour components of sd's colour space,
// 1 or 3 (device, calibrated or ICC-based grey and RGB), or 0 for one
// Images leaves alone.
func components(ctx *model.Context, sd types.StreamDict) int {
	cs, _ := sd.Find("ColorSpace")
	switch cs := deref(ctx, cs).(type) {
	case types.Name:
		return map[types.Name]int{"DeviceRGB": 3, "DeviceGray": 1}[cs]
	case types.Array:
		if len(cs) < 2 {
			return 0
		}
		switch family, _ := cs[0].(types.Name); family {
		case "CalRGB":
			return 3
		case "CalGray":
			return 1
		case "ICCBased":
			if icc, ok := deref(ctx, cs[1]).(types.StreamDict); ok {
				if n := icc.IntEntry("N"); n != nil && (*n == 1 || *n == 3) {
					return *n
				}
			}
		}
	}
	return 0
}

// decodeImage decodes an image of kind k, its decoded size bounded by
// k's before anything is inflated.
func decodeImage(sd types.StreamDict, k imageKind) (image.Image, bool) {
	if k.jpeg {
		return decodeJPEG(sd.Raw, k)
	}
	row := k.w * k.comps * k.bpc / 8
	// A PNG predictor adds a byte a row.
	if err := sd.DecodeWithLimit(int64(k.h) * int64(row+1)); err != nil || len(sd.Content) < k.h*row {
		return nil, false
	}
	r := image.Rect(0, 0, k.w, k.h)
	step := k.bpc / 8 // 16-bit samples keep their high byte
	if k.comps == 1 {
		img := image.NewGray(r)
		for i := range img.Pix {
			img.Pix[i] = sd.Content[i*step]
		}
		return img, true
	}
	img := image.NewRGBA(r)
	for i, j := 0, 0; j < len(img.Pix); i, j = i+3*step, j+4 {
		img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = sd.Content[i], sd.Content[i+step], sd.Content[i+2*step], 0xff
	}
	return img, true
}

// decodeJPEG decodes a JPEG image of kind k when the JPEG's own header
// agrees with k: its size, not the dictionary's, is what decoding costs.
func decodeJPEG(b []byte, k imageKind) (image.Image, bool) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width != k.w || cfg.Height != k.h {
		return nil, false
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, false
	}
	switch img.(type) {
	case *image.Gray:
		return img, k.comps == 1
	case *image.YCbCr, *image.RGBA:
		return img, k.comps == 3
	}
	return nil, false
}
