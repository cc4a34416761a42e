package smsapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// book is an address book of phone numbers per owner, as the Service
// takes one (contacts.Book is the real one, in another package).
type book map[string]map[string]string

func (b book) ResolvePhones(_ context.Context, owner string, list []string) ([]string, error) {
	var out []string
	for _, name := range list {
		n, ok := b[owner][name]
		if !ok {
			return nil, fmt.Errorf("no contact %q", name)
		}
		out = append(out, n)
	}
	return out, nil
}

// TestSendToContacts: a name is looked up in the sender's own book; a
// name only another user has, or a malformed number, is a 400 on "to".
func TestSendToContacts(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.Book = book{"alice": {"Mum": "+49 170 1111111", "Bad": "not a number"}, "bob": {"Boss": "+491702222222"}}
	})
	acc := e.send("alice", `{"to":["Mum","+491703333333"],"text":"hi"}`)
	if len(acc) != 2 || acc[0].To != "+491701111111" || acc[1].To != "+491703333333" {
		t.Errorf("accepted = %+v, want Mum's number and the number", acc)
	}
	for _, tt := range []struct{ to, want string }{
		{"Boss", `to "Boss": is neither a number`},
		{"Bad", `to "Bad": contact's number`},
		{"+49 17x", `to "+49 17x": is neither a number ("+49 17x" is not a phone number`},
	} {
		status, b, _ := e.do("alice", "POST", "/sms", `{"to":"`+tt.to+`","text":"hi"}`)
		if got := decodeJSON[apiError](t, b); status != http.StatusBadRequest || !strings.HasPrefix(got.Message, tt.want) {
			t.Errorf("POST to %q = %d %s, want 400 starting %q", tt.to, status, b, tt.want)
		}
	}
	if n := e.outboxSize(); n != 2 {
		t.Errorf("outbox holds %d messages, want 2", n)
	}
}
