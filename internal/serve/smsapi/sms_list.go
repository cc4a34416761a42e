package smsapi

import "net/http"

// handleList is GET /sms?state=&to=&since=&before=&limit=: the user's
// messages, newest first, {"items":[...],"next":N}.
func (s *Service) handleList(w http.ResponseWriter, r *http.Request) {
	f, err := filterOf(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	page, err := s.List(r.Context(), userOf(r), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, page)
}
