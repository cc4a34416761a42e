package serve

import (
	"context"
	"net/http"

	"calq/internal/serve/profiles"
)

type pageKey struct{}

// fromPage says whether a request came from the convert page.
func fromPage(ctx context.Context) bool { v, _ := ctx.Value(pageKey{}).(bool); return v }

type convertView struct {
	Profiles []profiles.Named
	Contacts []Contact
	MaxFile  int64
	MaxBody  int64
	MaxFiles int
	Mail     bool // mail can be sent
}

func (s *Server) convertView(r *http.Request) convertView {
	u := user(r)
	lim := s.opts.Limits.WithDefaults()
	v := convertView{MaxFile: lim.MaxFile, MaxBody: lim.MaxBody, MaxFiles: lim.MaxFiles, Mail: s.opts.Mail != nil}
	if s.opts.Profiles != nil {
		v.Profiles, _ = s.opts.Profiles.List(u.Name)
	}
	if s.opts.Contacts != nil {
		v.Contacts, _ = s.opts.Contacts.List(r.Context(), u.Name)
	}
	return v
}

func (s *Server) convertPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "convert", page{Title: "Convert", Nav: "convert", Data: s.convertView(r)})
}

// convertSubmit takes the convert page's form: Gotenberg's fields of
// /forms/libreoffice/convert (files, pdfa, merge, watermarkExpression,
// userPassword, ownerPassword, mailTo) and profile, one of the user's
// own. The job runs in the background; the browser goes to its page.
// Passwords typed in the form go where the API's do (a 0600 file of the
// job, never the journal) and are never shown again.
func (s *Server) convertSubmit(w http.ResponseWriter, r *http.Request) {
	// As POST /jobs: the upload must arrive within --request-timeout.
	ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), pageKey{}, true), s.opts.RequestTimeout)
	defer cancel()
	j, _, err := s.accept(ctx, w, r.WithContext(ctx), routeConvert, false)
	if err != nil {
		status, msg, retry := s.refusal(err)
		if retry > 0 {
			w.Header().Set("Retry-After", retryAfter(retry))
		}
		s.render(w, r, status, "convert", page{Title: "Convert", Nav: "convert", Error: msg, Data: s.convertView(r)})
		return
	}
	http.Redirect(w, r, "/job/"+j.ID, http.StatusSeeOther)
}
