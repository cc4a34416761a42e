package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// smsPollEvery is how often a live SMS page's stream reads the outbox
// and the inbox; smsStreamFor bounds one stream (the browser opens
// another if the page is still live).
const (
	smsPollEvery = time.Second
	smsStreamFor = 30 * time.Minute
)

// smsLists is what a live SMS page's stream sends (event "lists"): the
// outbox's and the inbox's first pages as the page draws them, and
// whether they may still change.
type smsLists struct {
	Outbox string `json:"outbox"`
	Inbox  string `json:"inbox"`
	Live   bool   `json:"live"`
}

// smsEvents streams the user's first page of sent and received messages
// as server-sent events, each time they change, until no message may
// change any more (live false) or smsStreamFor has passed.
func (s *Server) smsEvents(w http.ResponseWriter, r *http.Request) {
	if s.opts.SMSPages == nil {
		s.problem(w, r, http.StatusNotFound, "calq serve sends no SMS: it was started without modems or an SMS outbox.")
		return
	}
	flusher, ok := s.startEvents(w, r)
	if !ok {
		return
	}
	end := time.NewTimer(smsStreamFor)
	defer end.Stop()
	tick := time.NewTicker(smsPollEvery)
	defer tick.Stop()
	var last []byte
	for {
		l, err := s.smsListsNow(r)
		if err != nil {
			return
		}
		if b, _ := json.Marshal(l); !bytes.Equal(b, last) {
			fmt.Fprintf(w, "event: lists\ndata: %s\n\n", b)
			flusher.Flush()
			last = b
		}
		if !l.Live {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-end.C:
			return
		case <-tick.C:
		}
	}
}

// smsListsNow draws the outbox's and the inbox's first pages.
func (s *Server) smsListsNow(r *http.Request) (smsLists, error) {
	v := smsView{Admin: user(r).Admin}
	s.readSMSLists(r, &v, 0)
	tp, err := pageTemplates.get("sms")
	if err != nil {
		return smsLists{}, err
	}
	var out, in bytes.Buffer
	if err := tp.ExecuteTemplate(&out, "outbox", v); err != nil {
		return smsLists{}, err
	}
	if err := tp.ExecuteTemplate(&in, "inbox", v); err != nil {
		return smsLists{}, err
	}
	return smsLists{Outbox: out.String(), Inbox: in.String(), Live: v.Live}, nil
}
