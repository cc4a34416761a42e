package serve

import (
	"fmt"

	"calq/convert/pdf"
	"calq/internal/config"
)

// TaskFromProfile is a conversion profile as a job's task: watermark or
// stamp, metadata, optimisation, encryption, PDF/A and recipients, and
// the title that names a merged result. The
// encryption's passwords are read from the profile's files with
// readSecret (config.ReadSecret for the server's config file); an
// encrypting profile without owner_password_file is an error, so a
// user's own profile (internal/serve/profiles), which names no file,
// encrypts only with the passwords its caller adds.
func TaskFromProfile(p config.Profile, readSecret func(path string) (string, error)) (Task, error) {
	t := Task{PDFA: p.PDFA, MailTo: p.MailTo, Title: p.Title}
	if p.Watermark != "" || p.WatermarkImage != "" {
		wm := &pdf.Watermark{Text: p.Watermark, Image: p.WatermarkImage, Style: p.WatermarkStyle}
		if p.Stamp {
			t.Post.Stamp = wm
		} else {
			t.Post.Watermark = wm
		}
	}
	if m := (pdf.Metadata{Title: p.Title, Author: p.Author, Subject: p.Subject, Keywords: p.Keywords}); m.Title != "" ||
		m.Author != "" || m.Subject != "" || m.Keywords != "" {
		t.Post.Metadata = &m
	}
	t.Post.Optimize = p.Optimize != nil && *p.Optimize
	if !p.Encrypt {
		return t, nil
	}
	perms := p.Permissions
	if perms == "" {
		perms = "none"
	}
	pm, err := pdf.ParsePermissions(perms)
	if err != nil {
		return t, fmt.Errorf("permissions: %w", err)
	}
	enc := &pdf.Encryption{Permissions: pm}
	if p.OwnerPasswordFile == "" {
		return t, fmt.Errorf("encrypt needs owner_password_file")
	}
	if enc.OwnerPassword, err = readSecret(p.OwnerPasswordFile); err != nil {
		return t, err
	}
	if p.UserPasswordFile != "" {
		if enc.UserPassword, err = readSecret(p.UserPasswordFile); err != nil {
			return t, err
		}
	}
	t.Post.Encrypt = enc
	return t, nil
}
