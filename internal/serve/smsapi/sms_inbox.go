package smsapi

import "net/http"

// handleInbox is GET /sms/inbox?to=&since=&before=&limit=: received
// messages addressed to the user's numbers (to filters by sender).
func (s *Service) handleInbox(w http.ResponseWriter, r *http.Request) {
	f, err := filterOf(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	page, err := s.Inbox(r.Context(), userOf(r), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, page)
}
