package smsapi

import "net/http"

// handleGet is GET /sms/{id}: the message, its parts and their reports.
func (s *Service) handleGet(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	m, err := s.Get(r.Context(), userOf(r), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, m)
}
