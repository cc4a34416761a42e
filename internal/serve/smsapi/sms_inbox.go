package smsapi

import "net/http"

// handleInbox is GET /sms/inbox?from=&since=&before=&limit=: received
// messages addressed to the user's numbers, from= a sender's number.
func (s *Service) handleInbox(w http.ResponseWriter, r *http.Request) {
	var page Page[Inbound]
	f, err := filterOf(r)
	if err == nil {
		f.To = r.URL.Query().Get("from") // Filter.To is the other party's number
		page, err = s.Inbox(r.Context(), userOf(r), f)
	}
	s.answer(w, r, http.StatusOK, page, err)
}
