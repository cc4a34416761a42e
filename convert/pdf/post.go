package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
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
// of a PDF) put on the pages of Pages (a pdfcpu page selection such as
// "1-3,5" or "even"; "" is every page), behind the content or, with OnTop,
// over it (a stamp). Style is a pdfcpu description ("key:value, ...";
// keys fontname, points, color, rotation, diagonal, opacity, scalefactor,
// position, offset, ...); it replaces the default style as a whole. Text
// uses one of the 14 standard PDF fonts, so it is limited to Latin-1.
type Watermark struct {
	Text, Image, Style string
	OnTop              bool
	Pages              string `json:",omitempty"`
}

// Rotation turns the pages of Pages (a pdfcpu page selection; "" is every
// page) clockwise by Angle degrees: 90, 180 or 270, or their negatives to
// turn counter-clockwise. It sets each page's /Rotate, adding to the
// rotation the page already has.
type Rotation struct {
	Angle int
	Pages string
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
// Stamp is a second watermark that always goes over the content, whatever
// its OnTop says, so that a watermark and a stamp can be asked for at once
// (Gotenberg's watermark and stamp fields). Flatten draws the visible form
// fields and annotations into the page content and removes them (see
// Flatten's notes in flatten.go for what cannot be drawn). CustomMetadata
// holds keys of the information dictionary other than Metadata's, written
// in the metadata step (with or without Metadata). The fields added
// after the first four are omitted from JSON when unset, so the JSON of a
// Post that does not use them (part of convert's options fingerprint) is
// what it was before they existed.
type Post struct {
	Watermark *Watermark
	Metadata  *Metadata
	Optimize  bool
	Encrypt   *Encryption
	Stamp     *Watermark `json:",omitempty"`
	Rotate    *Rotation  `json:",omitempty"`
	Flatten   bool       `json:",omitempty"`

	CustomMetadata map[string]string `json:",omitempty"`

	// Watermarks and Stamps are those after Watermark and Stamp, when a
	// request asks for several, applied in order after them.
	Watermarks []Watermark `json:",omitempty"`
	Stamps     []Watermark `json:",omitempty"`
	// Bookmarks, when set, replace the PDF's outline.
	Bookmarks []Bookmark `json:",omitempty"`
	// Embeds are files attached to the PDF.
	Embeds []Attachment `json:",omitempty"`
	// Images, when set, re-encodes the raster images (before Optimize).
	Images *Images `json:",omitempty"`
	// FacturX, when set, makes a PDF/A-3 a Factur-X invoice; it goes
	// alone.
	FacturX *FacturX `json:",omitempty"`
	// SyncXMP, last, makes a PDF/A's XMP metadata repeat its information
	// dictionary again, as PDF/A asks, after the steps before it.
	SyncXMP bool `json:",omitempty"`
}

// Empty says whether p asks for nothing, in which case Apply only
// validates and rewrites its input.
func (p Post) Empty() bool {
	return p.Watermark == nil && p.Stamp == nil && len(p.Watermarks) == 0 && len(p.Stamps) == 0 &&
		p.Rotate == nil && !p.Flatten && len(p.Bookmarks) == 0 && len(p.Embeds) == 0 && p.Images == nil &&
		p.Metadata == nil && len(p.CustomMetadata) == 0 && !p.Optimize && p.Encrypt == nil && p.FacturX == nil && !p.SyncXMP
}

// step is one pdfcpu pass from an intermediate file to the next.
type step struct {
	name string
	run  func(rs io.ReadSeeker, w io.Writer) error
}

// Apply runs, in Gotenberg's order, the watermark, stamp, rotation,
// flattening, metadata, optimisation and encryption of p on in and writes
// the result at out (in and out may be the same file); each step is done
// only when p asks for it, so a Post with one field set is that one
// operation. With nothing to do it validates and rewrites in, as
// PassThrough does. An input that needs a password gives
// ErrEncrypted, and so does encrypting an input that is already encrypted;
// pdfcpu watermarks an input that opens without a password regardless of
// its permissions, keeping its encryption.
func Apply(ctx context.Context, in, out string, p Post) error {
	if err := p.check(); err != nil {
		return fmt.Errorf("post-process %s: %w", in, err)
	}
	return produce(ctx, "post-process "+in, out, func(s *stage) (string, error) {
		steps, err := p.steps(ctx, s)
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
	for _, m := range p.marks() {
		if err := m.w.check(m.name); err != nil {
			return err
		}
	}
	if err := checkBookmarks(p.Bookmarks); err != nil {
		return err
	}
	if err := checkEmbeds(p.Embeds); err != nil {
		return err
	}
	if p.Images != nil {
		if err := p.Images.check(); err != nil {
			return err
		}
	}
	if f := p.FacturX; f != nil {
		if err := f.check(); err != nil {
			return err
		}
		if alone := (Post{FacturX: f}); !reflect.DeepEqual(p, alone) {
			return errors.New("factur-x: it goes alone: any other change would break the PDF/A-3 it needs")
		}
	}
	if r := p.Rotate; r != nil {
		if err := r.check(); err != nil {
			return err
		}
	}
	if m := p.Metadata; m != nil {
		if err := m.check(); err != nil {
			return err
		}
	}
	if err := checkCustom(p.CustomMetadata); err != nil {
		return err
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

// check looks at the watermark called name ("watermark" or "stamp")
// without reading any file.
func (wm *Watermark) check(name string) error {
	if (wm.Text == "") == (wm.Image == "") {
		return fmt.Errorf("%s: give either a text or an image", name)
	}
	for _, r := range wm.Text {
		if r > 0xFF {
			return fmt.Errorf("%s: %q is not in Latin-1, which the standard PDF fonts are limited to", name, r)
		}
	}
	if _, err := pageSelection(name+"Pages", wm.Pages); err != nil {
		return err
	}
	return nil
}

func (r *Rotation) check() error {
	switch r.Angle {
	case 90, 180, 270, -90, -180, -270:
	default:
		return &FieldError{Field: "rotateAngle", Value: strconv.Itoa(r.Angle), Err: errors.New("want 90, 180 or 270 degrees, or their negatives")}
	}
	_, err := pageSelection("rotatePages", r.Pages)
	return err
}

// namedMark is a watermark or stamp with the name its errors give.
type namedMark struct {
	name string
	w    *Watermark
}

// marks are p's watermarks then its stamps, in the order they are
// applied; a stamp always goes over the content.
func (p Post) marks() []namedMark {
	var ms []namedMark
	add := func(name string, first *Watermark, rest []Watermark) {
		if first != nil {
			ms = append(ms, namedMark{name, first})
		}
		for i := range rest {
			ms = append(ms, namedMark{name, &rest[i]})
		}
	}
	add("watermark", p.Watermark, p.Watermarks)
	n := len(ms)
	add("stamp", p.Stamp, p.Stamps)
	for i := n; i < len(ms); i++ {
		w := *ms[i].w
		w.OnTop = true
		ms[i].w = &w
	}
	return ms
}

func (p Post) steps(ctx context.Context, s *stage) ([]step, error) {
	var steps []step
	for _, m := range p.marks() {
		st, err := m.w.step(s, m.name)
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	if r := p.Rotate; r != nil {
		steps = append(steps, step{"rotate", r.apply})
	}
	if p.Flatten {
		steps = append(steps, step{"flatten", flatten})
	}
	if len(p.Bookmarks) > 0 {
		steps = append(steps, step{"bookmarks", writeBookmarks(p.Bookmarks)})
	}
	if len(p.Embeds) > 0 {
		steps = append(steps, step{"embed", embed(p.Embeds)})
	}
	if m := p.Metadata; m != nil || len(p.CustomMetadata) > 0 {
		if m == nil {
			m = &Metadata{}
		}
		steps = append(steps, step{"metadata", m.apply(p.CustomMetadata)})
	}
	if p.FacturX != nil {
		steps = append(steps, step{"factur-x", p.FacturX.apply})
	}
	if p.Images != nil {
		steps = append(steps, step{"images", p.Images.apply(ctx)})
	}
	if p.Optimize {
		steps = append(steps, step{"optimize", optimize})
	}
	if e := p.Encrypt; e != nil {
		steps = append(steps, step{"encrypt", e.apply})
	}
	if m := p.Metadata; m != nil && m.rewritten() {
		steps = append(steps, step{"metadata", m.increment(p.Encrypt)})
	}
	if p.SyncXMP {
		steps = append(steps, step{"xmp", syncXMP})
	}
	if len(steps) == 0 {
		steps = append(steps, step{"validate", rewrite})
	}
	return steps, nil
}

// step parses the watermark called name and returns the step adding it.
func (wm *Watermark) step(s *stage, name string) (step, error) {
	m, err := wm.build(s, name)
	if err != nil {
		return step{}, err
	}
	pages, err := pageSelection(name+"Pages", wm.Pages)
	if err != nil {
		return step{}, err
	}
	return step{name, func(rs io.ReadSeeker, w io.Writer) error {
		return api.AddWatermarks(rs, w, pages, m, newConf(""))
	}}, nil
}

// build parses the watermark called name; an image is first made
// importable as in FromImages.
func (wm *Watermark) build(s *stage, name string) (*model.Watermark, error) {
	var m *model.Watermark
	err := protect(name, func() (err error) {
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
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

func styleOr(style, def string) string {
	if strings.TrimSpace(style) == "" {
		return def
	}
	return style
}

func (r *Rotation) apply(rs io.ReadSeeker, w io.Writer) error {
	pages, err := pageSelection("rotatePages", r.Pages)
	if err != nil {
		return err
	}
	return api.Rotate(rs, w, r.Angle, pages, newConf(""))
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
