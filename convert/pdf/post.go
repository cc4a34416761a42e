package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Default watermark descriptions, in pdfcpu's syntax, used when
// Watermark.Style is empty: large, light grey, diagonal text; an image at
// half the page width, half transparent.
const (
	DefaultTextStyle  = "fontname:Helvetica, points:48, rotation:45, opacity:0.3, scalefactor:0.7 rel, fillcolor:#808080"
	DefaultImageStyle = "rotation:0, opacity:0.5, scalefactor:0.5 rel"
)

// Watermark is a text or an image (png, jpg, tif, webp, gif, bmp, or page 1
// of a PDF) put on every page, behind the content or, with OnTop, over it
// (a stamp). Style is a pdfcpu description ("key:value, ..."; keys
// fontname, points, color, rotation, diagonal, opacity, scalefactor,
// position, offset, ...); it replaces the default style as a whole. Text
// uses one of the 14 standard PDF fonts, so it is limited to Latin-1.
type Watermark struct {
	Text, Image, Style string
	OnTop              bool
}

// Metadata is the document information to set; empty fields are left as
// they are.
type Metadata struct {
	Title, Author, Subject, Keywords string
}

// Encryption protects a PDF with AES-256. OwnerPassword is required; an
// empty UserPassword lets anyone open the PDF within Permissions.
// Passwords are normalised to NFKC and may not contain spaces or control
// characters nor exceed 127 bytes: pdfcpu could not open the result.
type Encryption struct {
	UserPassword, OwnerPassword string
	Permissions                 Permissions
}

// Post is the post-processing Apply does; nil or false steps are skipped.
type Post struct {
	Watermark *Watermark
	Metadata  *Metadata
	Optimize  bool
	Encrypt   *Encryption
}

// step is one pdfcpu pass from an intermediate file to the next.
type step struct {
	name string
	run  func(rs io.ReadSeeker, w io.Writer) error
}

// Apply runs, in this order, the watermark or stamp, metadata,
// optimisation and encryption of p on in and writes the result at out (in
// and out may be the same file). With nothing to do it validates and
// rewrites in, as PassThrough does. An input that needs a password gives
// ErrEncrypted, and so does encrypting an input that is already encrypted;
// pdfcpu watermarks an input that opens without a password regardless of
// its permissions, keeping its encryption.
func Apply(ctx context.Context, in, out string, p Post) error {
	if err := p.check(); err != nil {
		return fmt.Errorf("post-process %s: %w", in, err)
	}
	return produce(ctx, "post-process "+in, out, func(s *stage) (string, error) {
		steps, err := p.steps(s)
		if err != nil {
			return "", err
		}
		cur := in
		for _, st := range steps {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			if cur, err = s.transform(st.name, cur, st.run); err != nil {
				return "", fmt.Errorf("%s: %w", st.name, err)
			}
		}
		return cur, nil
	})
}

// check rejects bad options before any work is done.
func (p Post) check() error {
	if w := p.Watermark; w != nil {
		if (w.Text == "") == (w.Image == "") {
			return errors.New("watermark: give either a text or an image")
		}
		for _, r := range w.Text {
			if r > 0xFF {
				return fmt.Errorf("watermark: %q is not in Latin-1, which the standard PDF fonts are limited to", r)
			}
		}
	}
	if e := p.Encrypt; e != nil {
		if e.OwnerPassword == "" {
			return errors.New("encryption: the owner password must not be empty")
		}
		for _, pw := range []string{e.UserPassword, e.OwnerPassword} {
			if _, err := preparePassword(pw); err != nil {
				return fmt.Errorf("encryption: %w", err)
			}
		}
	}
	return nil
}

func (p Post) steps(s *stage) ([]step, error) {
	var steps []step
	if p.Watermark != nil {
		wm, err := p.Watermark.build(s)
		if err != nil {
			return nil, err
		}
		steps = append(steps, step{"watermark", func(rs io.ReadSeeker, w io.Writer) error {
			return api.AddWatermarks(rs, w, nil, wm, newConf(""))
		}})
	}
	if m := p.Metadata; m != nil {
		steps = append(steps, step{"metadata", m.apply})
	}
	if p.Optimize {
		steps = append(steps, step{"optimize", optimize})
	}
	if e := p.Encrypt; e != nil {
		steps = append(steps, step{"encrypt", e.apply})
	}
	if len(steps) == 0 {
		steps = append(steps, step{"validate", rewrite})
	}
	return steps, nil
}

// build parses the watermark; an image is first made importable as in
// FromImages.
func (wm *Watermark) build(s *stage) (*model.Watermark, error) {
	var m *model.Watermark
	err := protect("watermark", func() (err error) {
		switch {
		case wm.Text != "":
			m, err = api.TextWatermark(wm.Text, styleOr(wm.Style, DefaultTextStyle), wm.OnTop, false, types.POINTS)
		case strings.EqualFold(filepath.Ext(wm.Image), ".pdf"):
			m, err = api.PDFWatermark(wm.Image+":1", styleOr(wm.Style, DefaultImageStyle), wm.OnTop, false, types.POINTS)
		default:
			var img string
			if img, err = prepareImage(s, wm.Image); err == nil {
				m, err = api.ImageWatermark(img, styleOr(wm.Style, DefaultImageStyle), wm.OnTop, false, types.POINTS)
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("watermark: %w", err)
	}
	return m, nil
}

func styleOr(style, def string) string {
	if strings.TrimSpace(style) == "" {
		return def
	}
	return style
}

// apply writes the non-empty fields into the Info dictionary, where
// pdfcpu (and Inspect) read them.
func (m *Metadata) apply(rs io.ReadSeeker, w io.Writer) error {
	props := map[string]string{}
	for k, v := range map[string]string{"Title": m.Title, "Author": m.Author, "Subject": m.Subject, "Keywords": m.Keywords} {
		if v != "" {
			props[k] = v
		}
	}
	conf := newConf("")
	conf.Cmd = model.ADDPROPERTIES
	ctx, err := api.ReadAndValidate(rs, conf)
	if err != nil {
		return err
	}
	if err := pdfcpu.PropertiesAdd(ctx, props); err != nil {
		return err
	}
	return api.WriteContext(ctx, w)
}

func optimize(rs io.ReadSeeker, w io.Writer) error {
	conf := newConf("")
	conf.Optimize = true
	conf.OptimizeBeforeWriting = true
	return api.Optimize(rs, w, conf)
}

func (e *Encryption) apply(rs io.ReadSeeker, w io.Writer) error {
	user, err := preparePassword(e.UserPassword)
	if err != nil {
		return err
	}
	owner, err := preparePassword(e.OwnerPassword)
	if err != nil {
		return err
	}
	_ = Init()
	conf := tune(model.NewAESConfiguration(user, owner, 256))
	conf.Permissions = e.Permissions.flags()
	return api.Encrypt(rs, w, conf)
}

func rewrite(rs io.ReadSeeker, w io.Writer) error {
	conf := newConf("")
	ctx, err := api.ReadAndValidate(rs, conf)
	if err != nil {
		return err
	}
	return api.WriteContext(ctx, w)
}
