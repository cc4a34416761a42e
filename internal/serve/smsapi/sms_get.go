package smsapi

import "net/http"

// handleGet is GET /sms/{id}: the message, its parts and their reports.
func (s *Service) handleGet(w http.ResponseWriter, r *http.Request) {
	var m Message
	id, err := pathID(r)
	if err == nil {
		m, err = s.Get(r.Context(), userOf(r), id)
	}
	s.answer(w, r, http.StatusOK, m, err)
}
