package smsapi

import "net/http"

// handleCancel is DELETE /sms/{id}: cancels the message if no part of it
// is with a modem (409 otherwise) and answers it as it is then.
func (s *Service) handleCancel(w http.ResponseWriter, r *http.Request) {
	var m Message
	id, err := pathID(r)
	if err == nil {
		m, err = s.Cancel(r.Context(), userOf(r), id)
	}
	s.answer(w, r, http.StatusOK, m, err)
}
