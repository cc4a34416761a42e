package smsapi

import "net/http"

// handleCancel is DELETE /sms/{id}: cancels the message if no part of it
// is with a modem (409 otherwise) and answers it as it is then.
func (s *Service) handleCancel(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	m, err := s.Cancel(r.Context(), userOf(r), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, m)
}
