package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"calq/convert/lo"
	"calq/convert/pdf"
	"calq/convert/sniff"
	"calq/internal/serve/form"
	"calq/internal/serve/users"
)

// task reads a request's form into what its job does, over the user's
// profile: a field the form gives replaces the profile's value.
func (s *Server) task(ctx context.Context, route string, f *form.Form, u users.User) (Task, error) {
	t, err := s.baseTask(ctx, route, f, u)
	if err != nil {
		return t, err
	}
	var fp form.Post
	switch {
	case isChromium(route):
		if fp, err = chromiumTask(route, f, &t); err != nil {
			return t, err
		}
	case route == routeConvert:
		o, err := form.LibreOffice(f)
		if err != nil {
			return t, err
		}
		t.Export = lo.Export{Landscape: o.Landscape, PageRanges: o.PageRanges, PDFUA: o.PDFUA,
			SinglePageSheets: o.SinglePageSheets, ExportFormFields: o.ExportFormFields, ExportBookmarks: o.ExportBookmarks,
			ExportNotes: o.ExportNotes, LosslessImageCompression: o.LosslessImageCompression, Quality: o.Quality,
			MaxImageResolution: o.MaxImageResolution, Password: o.Password,
			ExportBookmarksToPdfDestination: o.ExportBookmarksToPdfDestination,
			NativeWatermarkText:             o.NativeWatermark.Text, NativeWatermarkColor: o.NativeWatermark.Color,
			NativeWatermarkFontHeight: o.NativeWatermark.FontHeight, NativeWatermarkRotateAngle: o.NativeWatermark.RotateAngle,
			NativeWatermarkFontName: o.NativeWatermark.FontName, NativeTiledWatermarkText: o.NativeWatermark.Tiled,
			Options: o.Options, UpdateIndexes: o.UpdateIndexes}
		if f.Has("pdfa") {
			t.PDFA = o.PDFA
		}
		t.Merge = o.Merge
		if f.Has("mailTo") {
			t.MailTo = o.MailTo
		}
		fp = o.Post
	default:
		o, err := form.PDFEngines(strings.TrimPrefix(route, "pdfengines/"), f)
		if err != nil {
			return t, err
		}
		if route == routePDFA {
			t.PDFA, t.Export.PDFUA = o.PDFA, o.PDFUA
			if t.PDFA == 0 && !t.Export.PDFUA {
				return t, fieldError("pdfa", "is required on this route (PDF/A-1b, PDF/A-2b or PDF/A-3b), or pdfua")
			}
		} else {
			// merge and split read pdfa and pdfua (see afterPDFA); a
			// profile's PDF/A is for conversions.
			t.PDFA, t.Export.PDFUA = o.PDFA, o.PDFUA
		}
		fp = o.Post
		t.AutoIndexBookmarks, t.TitleBookmarks = o.AutoIndexBookmarks, o.TitleBookmarks
	}
	if err := mergePost(&t, fp); err != nil {
		return t, err
	}
	if t.Post.FacturX != nil && t.PDFA == 0 && route != routeFacturX {
		t.PDFA = 3 // Factur-X is a PDF/A-3
	}
	if t.FileBookmarks, err = fileBookmarks(fp.FileBookmarks, f.Inputs()); err != nil {
		return t, err
	}
	if route == routeMetaRead || route == routeBookmarksRead {
		t.Post = pdf.Post{} // reads, changes nothing
	}
	if err := checkTask(route, t); err != nil {
		return t, err
	}
	if len(t.MailTo) > 0 {
		if s.opts.Mail == nil {
			return t, fieldError("mailTo", "needs an [smtp] server in calq serve's config file")
		}
		if err := s.opts.Mail.Check(ctx, u.Name, t.MailTo); err != nil {
			return t, refuse(ctx, "mailTo", err.Error(), "Mail to: "+err.Error()+". Use an address, or a name from your address book.")
		}
	}
	if f.Has("smsTo") {
		t.SMSTo = form.Recipients(f.Value("smsTo"))
	}
	return t, s.checkSMSTo(ctx, u, t.SMSTo)
}

// baseTask is what a request's fields go over: the user's own profile
// that a page's form names, else the profile the administrator gave the
// user. A page's request also keeps the PDFs of the files that converted
// when others failed, and takes a watermark's text alone.
func (s *Server) baseTask(ctx context.Context, route string, f *form.Form, u users.User) (Task, error) {
	if !fromPage(ctx) || route != routeConvert {
		return s.profileTask(u)
	}
	t := Task{Partial: true}
	if name := f.Value("profile"); name != "" {
		if s.opts.Profiles == nil {
			return t, fieldError("profile", "cannot be used: calq serve keeps no profiles")
		}
		p, err := s.opts.Profiles.Get(u.Name, name)
		if err != nil {
			return t, refuse(ctx, "profile", fmt.Sprintf("%q cannot be used: %v", name, err),
				fmt.Sprintf("Your profile “%s” cannot be used: %v.", name, err))
		}
		// A user's profile keeps no password: an encrypting one takes
		// those typed in the form, with its permissions.
		encrypt := p.Encrypt
		p.Encrypt = false
		if t, err = TaskFromProfile(p, nil); err != nil {
			return t, refuse(ctx, "profile", fmt.Sprintf("%q cannot be used: %v", name, err),
				fmt.Sprintf("Your profile “%s” cannot be used: %v. Edit it on the Profiles page.", name, err))
		}
		if encrypt {
			if !f.Has("userPassword") && !f.Has("ownerPassword") {
				return t, refuse(ctx, "ownerPassword", fmt.Sprintf("is required: the profile %q encrypts; type the passwords", name),
					fmt.Sprintf("Your profile “%s” encrypts the PDF: type a password to open it, an owner password, or both.", name))
			}
			allow := map[string]bool{"none": false, "": false, "print": false, "all": true}
			for _, field := range []string{"allowPrinting", "allowCopying", "allowModifying", "allowAnnotating", "allowFillingForms", "allowAssembling"} {
				if !f.Has(field) {
					f.Set(field, fmt.Sprint(allow[p.Permissions] || (field == "allowPrinting" && p.Permissions == "print")))
				}
			}
		}
		t.Partial = true
	} else {
		var err error
		if t, err = s.profileTask(u); err != nil {
			return t, err
		}
		t.Partial = true
	}
	if f.Has("watermarkExpression") && !f.Has("watermarkSource") {
		f.Set("watermarkSource", "text")
	}
	return t, pdfaConflicts(f, t)
}

// pdfaConflicts refuses, in the page's words and before the form's own
// checks word it for the API, what checkTask refuses: a PDF/A (the
// form's, else the profile's) with anything that changes the PDF after
// LibreOffice's PDF/A export. It names each of them.
func pdfaConflicts(f *form.Form, base Task) error {
	if !f.Has("pdfa") && base.PDFA == 0 {
		return nil
	}
	var with []string
	if f.Has("watermarkExpression") || base.Post.Watermark != nil || base.Post.Stamp != nil {
		with = append(with, "a watermark")
	}
	if f.Has("userPassword") || f.Has("ownerPassword") || base.Post.Encrypt != nil {
		with = append(with, "passwords")
	}
	if f.Bool("merge") || base.Merge {
		with = append(with, "merging")
	}
	rest := base.Post
	rest.Watermark, rest.Stamp, rest.Encrypt = nil, nil, nil
	if !rest.Empty() {
		with = append(with, "your profile's other changes (title, optimizing...)")
	}
	if len(with) == 0 {
		return nil
	}
	list := with[0]
	if n := len(with); n > 1 {
		list = strings.Join(with[:n-1], ", ") + " or " + with[n-1]
	}
	return &pageError{msg: "PDF/A cannot go with " + list + ": any change to a PDF/A file after it is made " +
		"breaks its conformance. Choose a plain PDF, or leave those out."}
}

// profileTask is the user's profile as a task; none without one.
func (s *Server) profileTask(u users.User) (Task, error) {
	if u.Profile == "" || s.opts.Profile == nil {
		return Task{}, nil
	}
	t, err := s.opts.Profile(u.Profile)
	if err != nil {
		// The cause may name the server's files (a password file): the log has it.
		s.opts.Log.Error("apply a user's profile", "user", u.Name, "profile", u.Profile, "err", err)
		return t, &jobError{status: http.StatusInternalServerError,
			msg: fmt.Sprintf("the profile %q of user %s cannot be used; the cause is in calq serve's log", u.Profile, u.Name)}
	}
	return t, nil
}

// fieldError is a 400 about one form field, in Gotenberg's words.
func fieldError(field, why string) error {
	return &form.Error{Status: http.StatusBadRequest,
		Msg: fmt.Sprintf("Invalid form data: form field '%s' %s", field, why)}
}

// mergePost puts the form's post-processing over the profile's.
func mergePost(t *Task, fp form.Post) error {
	if fp.Split != nil {
		t.Split = &pdf.SplitSpec{Mode: fp.Split.Mode, Span: fp.Split.Span, Unify: fp.Split.Unify}
	}
	for _, m := range []struct {
		field string
		mark  *form.Mark
		dst   **pdf.Watermark
	}{{"watermark", fp.Watermark, &t.Post.Watermark}, {"stamp", fp.Stamp, &t.Post.Stamp}} {
		if m.mark != nil {
			wm := watermark(*m.mark, m.field == "stamp")
			*m.dst = &wm
		}
	}
	for _, m := range fp.Watermarks {
		t.Post.Watermarks = append(t.Post.Watermarks, watermark(m, false))
	}
	for _, m := range fp.Stamps {
		t.Post.Stamps = append(t.Post.Stamps, watermark(m, true))
	}
	if fp.Bookmarks != nil {
		t.Post.Bookmarks = fp.Bookmarks
	}
	t.Post.Embeds = append(t.Post.Embeds, fp.Embeds...)
	t.Post.Optimize = t.Post.Optimize || fp.Optimize
	if fp.Images != nil {
		t.Post.Images = fp.Images
	}
	if fp.FacturX != nil {
		t.Post.FacturX = fp.FacturX
	}
	if fp.Rotate != nil {
		t.Post.Rotate = &pdf.Rotation{Angle: fp.Rotate.Angle, Pages: fp.Rotate.Pages}
	}
	t.Post.Flatten = t.Post.Flatten || fp.Flatten
	if fp.Metadata != nil {
		m, custom, err := metadata(fp.Metadata)
		if err != nil {
			return err
		}
		t.Post.Metadata, t.Post.CustomMetadata = m, custom
	}
	if e := fp.Encrypt; e != nil {
		owner := e.OwnerPassword
		if owner == "" {
			owner = e.UserPassword // as Gotenberg's pdfcpu engine does
		}
		p := e.Permissions
		t.Post.Encrypt = &pdf.Encryption{UserPassword: e.UserPassword, OwnerPassword: owner,
			Permissions: pdf.Permissions{Print: p.AllowPrinting, PrintHigh: p.AllowPrinting, Copy: p.AllowCopying,
				Extract: p.AllowCopying, Modify: p.AllowModifying, Annotate: p.AllowAnnotating, Fill: p.AllowFillingForms,
				Assemble: p.AllowAssembling}}
	}
	return nil
}

// watermark is a form's watermark or stamp as pdf's.
func watermark(m form.Mark, stamp bool) pdf.Watermark {
	wm := pdf.Watermark{Style: m.Description, OnTop: stamp, Pages: m.Pages}
	if m.Source == "text" {
		wm.Text = m.Text
	} else {
		wm.Image = m.File
	}
	return wm
}

// dateAliases are ExifTool's names of the information dictionary's
// dates, which metadata/read answers (as Gotenberg's does) and so a
// client sends back: each means the PDF key it names.
var dateAliases = map[string]string{"CreateDate": "CreationDate", "ModifyDate": "ModDate"}

// metadata reads Gotenberg's metadata object: the standard keys of the
// information dictionary, dates under PDF's or ExifTool's names in RFC
// 3339, PDF's or ExifTool's form, keywords as a string or a list; other
// keys become custom entries.
func metadata(in map[string]any) (*pdf.Metadata, map[string]string, error) {
	m := &pdf.Metadata{}
	var custom map[string]string
	texts := map[string]*string{"Title": &m.Title, "Author": &m.Author, "Subject": &m.Subject,
		"Keywords": &m.Keywords, "Creator": &m.Creator, "Producer": &m.Producer, "Trapped": &m.Trapped}
	dates := map[string]*time.Time{"CreationDate": &m.CreationDate, "ModDate": &m.ModDate}
	for alias, k := range dateAliases {
		if _, ok := in[alias]; ok {
			if _, both := in[k]; both {
				return nil, nil, fieldError("metadata", fmt.Sprintf("is invalid (%s and %s are one date: give one)", k, alias))
			}
			dates[alias] = dates[k]
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		v := in[k]
		text, err := metaText(k, v)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case texts[k] != nil:
			*texts[k] = text
		case dates[k] != nil:
			t, err := metaDate(text)
			if err != nil {
				return nil, nil, fieldError("metadata", fmt.Sprintf("is invalid (%s %q: want a date such as 2006-01-02T15:04:05Z)", k, text))
			}
			*dates[k] = t
		case k == "Marked":
			b, ok := v.(bool)
			if !ok {
				return nil, nil, fieldError("metadata", fmt.Sprintf("is invalid (Marked %q: want true or false)", text))
			}
			m.Marked = fmt.Sprint(b)
		case k == "PDFVersion" || k == "PageCount":
			// What metadata/read gives and a client sends back as it
			// read it: the file's own facts, not written (as ExifTool,
			// Gotenberg's writer, takes them).
		default:
			if custom == nil {
				custom = map[string]string{}
			}
			custom[k] = text
		}
	}
	if *m == (pdf.Metadata{}) {
		m = nil
	}
	return m, custom, nil
}

func metaText(k string, v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		if k == "Trapped" {
			if v {
				return "True", nil
			}
			return "False", nil
		}
		return fmt.Sprint(v), nil
	case json.Number:
		return v.String(), nil
	case float64:
		return fmt.Sprint(v), nil
	case []any:
		parts := make([]string, len(v))
		for i, p := range v {
			s, ok := p.(string)
			if !ok {
				return "", unwritableMetadata(&pdf.FieldError{Field: "metadata", Value: k, Err: errors.New("a list holds strings only")})
			}
			parts[i] = s
		}
		return strings.Join(parts, ", "), nil
	case nil:
		return "", nil
	}
	return "", unwritableMetadata(&pdf.FieldError{Field: "metadata", Value: k, Err: errors.New("want a string, a number, a boolean or a list of strings")})
}

// unwritableMetadata refuses a metadata key or value with Gotenberg's
// sentence, which its clients look for, followed by calq's reason.
func unwritableMetadata(err error) error {
	return badRequest("The requested metadata could not be written: %v", err)
}

func metaDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02", "D:20060102150405Z07'00'", "D:20060102150405",
		"2006:01:02 15:04:05Z07:00", "2006:01:02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not a date")
}

// checkTask refuses, before the job is queued, what its steps would
// refuse.
func checkTask(route string, t Task) error {
	p := t.Post
	if pdfaWanted(t) && route != routePDFA && p.FacturX != nil {
		// Factur-X is added alone after the PDF/A export (afterPDFA).
		if err := (pdf.Post{FacturX: p.FacturX}).Check(); err != nil {
			return badRequest("Invalid form data: %v", err)
		}
		p.FacturX = nil
	}
	if err := p.Check(); err != nil {
		if fe := (*pdf.FieldError)(nil); errors.As(err, &fe) && fe.Field == "metadata" {
			return unwritableMetadata(err)
		}
		return badRequest("Invalid form data: %v", err)
	}
	if err := t.Export.Check(); err != nil {
		return badRequest("Invalid form data: %v", err)
	}
	if t.Split != nil {
		if err := t.Split.Check(); err != nil && t.Split.Mode == pdf.SplitPages {
			return form.BadSplitSpan // Gotenberg's sentence
		} else if err != nil {
			return badRequest("Invalid form data: %v", err)
		}
	}
	return checkPDFA(t)
}

// quoteName is a client's file name in a sentence: 'name'.
func quoteName(name string) string { return "'" + name + "'" }

// checkFiles refuses, with a 400 naming it, a file the route cannot
// take: a PDF engines route takes PDFs; a conversion, what calq convert
// converts (sniffed by content as well as by name).
func checkFiles(route string, files []form.File, t Task) error {
	if t.Partial || isChromium(route) {
		return nil // each file that cannot be converted fails alone, with its reason; a page's assets are any files
	}
	for _, f := range files {
		if route != routeConvert {
			if !fitsRoute(route, f) {
				return badRequest("Invalid form data: file '%s' is not a PDF (this route takes .pdf files)", f.Name)
			}
			continue
		}
		_, err := sniff.Detect(f.Path)
		if err == nil && t.Export.Password != "" && sniff.TellsPassword(f.Path) { // Gotenberg's sentence
			return badRequest("The document %s is not password-protected. Remove the 'password' form field.", quoteName(f.Name))
		}
		if err != nil {
			if errors.Is(err, sniff.ErrPassword) && t.Export.Password != "" {
				continue
			}
			if errors.Is(err, sniff.ErrPassword) { // Gotenberg's sentence
				return badRequest("The document %s is password-protected. Provide its password in the 'password' form field.", quoteName(f.Name))
			}
			var se *sniff.Error
			reason := err.Error()
			if errors.As(err, &se) {
				reason = se.Reason
			}
			return badRequest("Invalid form data: file '%s' cannot be converted: %s", f.Name, reason)
		}
	}
	return nil
}
