package smsapi

import "net/http"

// handleList is GET /sms?state=&to=&since=&before=&limit=: the user's
// messages, newest first, {"items":[...],"next":N}.
func (s *Service) handleList(w http.ResponseWriter, r *http.Request) {
	var page Page[Message]
	f, err := filterOf(r)
	if err == nil {
		page, err = s.List(r.Context(), userOf(r), f)
	}
	s.answer(w, r, http.StatusOK, page, err)
}
