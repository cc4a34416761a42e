package smsapi

import "net/http"

// handleInbox is GET /sms/inbox?to=&since=&before=&limit=: received
// messages addressed to the user's numbers (to filters by sender).
func (s *Service) handleInbox(w http.ResponseWriter, r *http.Request) {
	var page Page[Inbound]
	f, err := filterOf(r)
	if err == nil {
		page, err = s.Inbox(r.Context(), userOf(r), f)
	}
	s.answer(w, r, http.StatusOK, page, err)
}
