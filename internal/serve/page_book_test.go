package serve

import (
	"html"
	"net/url"
	"strings"
	"testing"
)

// TestContactsPagePhones: the address book page keeps an email address,
// a phone number or both per contact, shows each, refuses bad input
// with a sentence, and the mail forms offer only contacts with an
// address.
func TestContactsPagePhones(t *testing.T) {
	ts := pageServer(t, func(o *Options) { o.Mail = &recordingMailer{} })
	alice := browserClient(t)
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	save := func(name, address, phone string) url.Values {
		return url.Values{"action": {"save"}, "name": {name}, "address": {address}, "phone": {phone}}
	}
	tests := []struct {
		name   string
		v      url.Values
		status int
		want   []string
	}{
		{"both", save("bob", "bob@example.com", "+49 151 2345-678"), 200,
			[]string{"Saved bob.", "bob@example.com", `<a href="tel:+491512345678">+491512345678</a>`}},
		{"phone only, CJK name", save("山田 太郎", "", "090-1234-5678"), 200, []string{"山田 太郎", "09012345678"}},
		{"address only", save("boss", "boss@example.com", ""), 200, []string{"boss@example.com"}},
		{"neither", save("x", "", ""), 400,
			[]string{`Not saved: The email address "" is empty, and so is the phone number: give one or both.`}},
		{"bad number", save("x", "", "+49 CALL-ME"), 400,
			[]string{`Not saved: The phone number "+49 CALL-ME" is not a phone number: 'C' is not a digit.`}},
		{"number as address", save("x", "+4915112345", ""), 400, []string{`Not saved: The email address "+4915112345" is not an email address`}},
		{"remove unknown", url.Values{"action": {"remove"}, "name": {"nobody"}}, 400, []string{"Not saved: There is no such contact."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, page := pagePost(t, alice, ts.URL+"/contacts", tt.v)
			if status != tt.status {
				t.Errorf("POST /contacts %v: %d, want %d", tt.v, status, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(html.UnescapeString(page), w) {
					t.Errorf("POST /contacts %v: the page has no %q\n%s", tt.v, w, page)
				}
			}
			if strings.Contains(page, "%!") {
				t.Errorf("the page holds a format error: %s", page)
			}
		})
	}
	// A refused change keeps what was typed.
	_, page := pagePost(t, alice, ts.URL+"/contacts", save("carol", "carol@example.com", "+49 CALL"))
	if !strings.Contains(page, `value="carol@example.com"`) || !strings.Contains(page, `value="&#43;49 CALL"`) {
		t.Errorf("a refused save did not keep the form's values:\n%s", page)
	}
	// ?edit=NAME fills the form with the contact.
	_, page = pageGet(t, alice, ts.URL+"/contacts?edit=bob", nil)
	if !strings.Contains(page, `value="bob@example.com"`) || !strings.Contains(page, `value="&#43;491512345678"`) {
		t.Errorf("/contacts?edit=bob does not fill the form:\n%s", page)
	}
	// The convert page's mail list names contacts with an address only.
	_, page = pageGet(t, alice, ts.URL+"/convert", nil)
	if !strings.Contains(page, `<option value="bob">bob@example.com</option>`) || strings.Contains(page, "山田") {
		t.Errorf("the convert page's contacts: want bob, not 山田 (a number only):\n%s", page)
	}
}
