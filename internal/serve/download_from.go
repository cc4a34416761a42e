package serve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"calq/convert/sniff"
	"calq/internal/serve/download"
	"calq/internal/serve/form"
)

// download fetches the files f's downloadFrom field lists into dir, as
// files of f, through the webhooks' address policy and within the
// request's limits. A downloaded file to work on that route cannot take
// is left out (see dropUnfit).
func (s *Server) download(ctx context.Context, route string, f *form.Form, dir string) error {
	entries, err := download.Parse(f.Value(download.Field))
	if err != nil || len(entries) == 0 {
		return err
	}
	if s.opts.NoDownloadFrom {
		return badRequest("Invalid form data: form field '%s' is turned off on this server (calq serve --no-download-from)", download.Field)
	}
	uploaded := map[string]bool{}
	for _, file := range f.Files {
		uploaded[file.Path] = true
	}
	if err := download.Fetch(ctx, f, dir, entries, download.Options{Policy: s.opts.WebhookPolicy, Limits: s.opts.Limits}); err != nil {
		return err
	}
	s.dropUnfit(route, f, uploaded)
	return nil
}

// dropUnfit removes from f, and from disk, the downloaded files to work
// on (those not in uploaded, nor embeds, watermarks or stamps) that
// route cannot take, and logs each. Gotenberg's routes pick their files
// by extension and leave the others out, so that downloadFrom may list
// an .xml "embedded": false on a PDF route; a client's own upload that
// does not fit is still refused by checkFiles, naming it.
func (s *Server) dropUnfit(route string, f *form.Form, uploaded map[string]bool) {
	drop := map[string]bool{}
	for _, in := range f.Inputs() {
		if !uploaded[in.Path] && !fitsRoute(route, in) {
			drop[in.Path] = true
			s.opts.Log.Info("downloaded file left out", "route", route, "file", in.Name,
				"reason", "the route takes "+strings.Join(routeExtensions(route), " ")+" files")
		}
	}
	f.Files = slices.DeleteFunc(f.Files, func(file form.File) bool {
		if drop[file.Path] {
			os.Remove(file.Path) // else it goes with the job's directory
		}
		return drop[file.Path]
	})
}

// fitsRoute says whether route can take the file to work on: a PDF
// engines route takes .pdf files; a conversion, what calq convert
// converts (by content as well as by name; a document that needs a
// password is one).
func fitsRoute(route string, f form.File) bool {
	if isChromium(route) {
		return true // a page's assets are of any kind
	}
	if route != routeConvert {
		return strings.EqualFold(filepath.Ext(f.Name), ".pdf")
	}
	_, err := sniff.Detect(f.Path)
	return err == nil || errors.Is(err, sniff.ErrPassword)
}
