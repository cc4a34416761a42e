package pdf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/draw"
	"io"
	"os"
)

var errNoOrientation = errors.New("no EXIF orientation")

// jpegOrientation returns the EXIF orientation (1-8) of the JPEG at path.
func jpegOrientation(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	app1, err := exifSegment(bufio.NewReader(f))
	if err != nil {
		return 0, err
	}
	return exifOrientation(app1)
}

// exifSegment returns the payload of the JPEG's APP1 "Exif" segment, which
// precedes the image data.
func exifSegment(r io.Reader) ([]byte, error) {
	var soi [2]byte
	if _, err := io.ReadFull(r, soi[:]); err != nil || soi != [2]byte{0xFF, 0xD8} {
		return nil, errors.New("not a JPEG")
	}
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil || hdr[0] != 0xFF {
			return nil, errNoOrientation
		}
		marker, n := hdr[1], int(binary.BigEndian.Uint16(hdr[2:]))-2
		if marker == 0xDA || marker == 0xD9 || n < 0 { // start of scan, end of image
			return nil, errNoOrientation
		}
		seg := make([]byte, n)
		if _, err := io.ReadFull(r, seg); err != nil {
			return nil, errNoOrientation
		}
		if marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return seg[6:], nil
		}
	}
}

// exifOrientation finds tag 0x0112 in IFD0 of the TIFF structure tiff.
func exifOrientation(tiff []byte) (int, error) {
	if len(tiff) < 8 {
		return 0, errNoOrientation
	}
	var order binary.ByteOrder
	switch string(tiff[:2]) {
	case "II":
		order = binary.LittleEndian
	case "MM":
		order = binary.BigEndian
	default:
		return 0, errNoOrientation
	}
	ifd := int64(order.Uint32(tiff[4:]))
	if ifd+2 > int64(len(tiff)) {
		return 0, errNoOrientation
	}
	count := int64(order.Uint16(tiff[ifd:]))
	for i := int64(0); i < count; i++ {
		e := ifd + 2 + 12*i
		if e+12 > int64(len(tiff)) {
			break
		}
		if order.Uint16(tiff[e:]) == 0x0112 && order.Uint16(tiff[e+2:]) == 3 { // SHORT
			return int(order.Uint16(tiff[e+8:])), nil
		}
	}
	return 0, errNoOrientation
}

// orient returns img turned upright for EXIF orientation o (2-8): the
// mirrors and rotations of the TIFF specification, e.g. 6 = rotate 90°
// clockwise.
func orient(img image.Image, o int) image.Image {
	b := img.Bounds()
	src := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(src, src.Bounds(), img, b.Min, draw.Src)
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	for sy := 0; sy < h; sy++ {
		for sx := 0; sx < w; sx++ {
			dx, dy := orientPoint(o, sx, sy, w, h)
			copy(dst.Pix[dst.PixOffset(dx, dy):][:4], src.Pix[src.PixOffset(sx, sy):][:4])
		}
	}
	return dst
}

// orientPoint maps source pixel (x, y) of a w×h image to its place in the
// upright image.
func orientPoint(o, x, y, w, h int) (int, int) {
	switch o {
	case 2: // mirror horizontal
		return w - 1 - x, y
	case 3: // rotate 180
		return w - 1 - x, h - 1 - y
	case 4: // mirror vertical
		return x, h - 1 - y
	case 5: // transpose
		return y, x
	case 6: // rotate 90 clockwise
		return h - 1 - y, x
	case 7: // transverse
		return h - 1 - y, w - 1 - x
	case 8: // rotate 90 counter-clockwise
		return y, w - 1 - x
	}
	return x, y
}
