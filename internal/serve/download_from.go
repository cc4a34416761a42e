package serve

import (
	"context"

	"calq/internal/serve/download"
	"calq/internal/serve/form"
)

// download fetches the files f's downloadFrom field lists into dir, as
// files of f, through the webhooks' address policy and within the
// request's limits.
func (s *Server) download(ctx context.Context, f *form.Form, dir string) error {
	entries, err := download.Parse(f.Value(download.Field))
	if err != nil || len(entries) == 0 {
		return err
	}
	if s.opts.NoDownloadFrom {
		return badRequest("Invalid form data: form field '%s' is turned off on this server (calq serve --no-download-from)", download.Field)
	}
	return download.Fetch(ctx, f, dir, entries, download.Options{Policy: s.opts.WebhookPolicy, Limits: s.opts.Limits})
}
