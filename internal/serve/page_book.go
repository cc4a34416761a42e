package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"calq/convert/contacts"
	"calq/internal/config"
	"calq/internal/serve/profiles"
)

type contactsView struct {
	Contacts []Contact
	Edit     Contact // the form's values after a refusal
}

// contactsPage is the user's own address book; ?edit=NAME fills the
// form with one of its contacts.
func (s *Server) contactsPage(w http.ResponseWriter, r *http.Request) {
	edit := Contact{Name: r.URL.Query().Get("edit")}
	s.showContacts(w, r, http.StatusOK, "", "", edit)
}

func (s *Server) showContacts(w http.ResponseWriter, r *http.Request, status int, notice, msg string, edit Contact) {
	if s.opts.Contacts == nil {
		s.problem(w, r, http.StatusNotFound, "calq serve keeps no address book.")
		return
	}
	cs, err := s.opts.Contacts.List(r.Context(), user(r).Name)
	if err != nil && msg == "" {
		status, msg, _ = s.internalError("read the address book", err)
	}
	if edit.Address == "" && edit.Phone == "" {
		for _, c := range cs {
			if c.Name == edit.Name {
				edit = c
			}
		}
	}
	s.render(w, r, status, "contacts", page{Title: "Address book", Nav: "contacts", Notice: notice, Error: msg,
		Data: contactsView{Contacts: cs, Edit: edit}})
}

// contactsSubmit adds or changes (action save) or removes (action
// remove) a contact of the user's own book.
func (s *Server) contactsSubmit(w http.ResponseWriter, r *http.Request) {
	if s.opts.Contacts == nil {
		s.problem(w, r, http.StatusNotFound, "calq serve keeps no address book.")
		return
	}
	if err := readForm(w, r); err != nil {
		s.showContacts(w, r, http.StatusBadRequest, "", err.Error(), Contact{})
		return
	}
	c := Contact{Name: strings.TrimSpace(r.PostForm.Get("name")), Address: strings.TrimSpace(r.PostForm.Get("address")),
		Phone: strings.TrimSpace(r.PostForm.Get("phone"))}
	u := user(r).Name
	var err error
	var notice string
	switch r.PostForm.Get("action") {
	case "save":
		err, notice = s.opts.Contacts.Set(r.Context(), u, c), "Saved "+c.Name+"."
	case "remove":
		err, notice = s.opts.Contacts.Remove(r.Context(), u, c.Name), "Removed "+c.Name+"."
	default:
		err = fmt.Errorf("unknown action %q: the form's buttons are save and remove", r.PostForm.Get("action"))
	}
	if err != nil {
		status, msg := s.refusedChange("change the address book", err)
		if status == http.StatusBadRequest {
			msg = contactRefusal(err)
		}
		s.showContacts(w, r, status, "", msg, c)
		return
	}
	s.showContacts(w, r, http.StatusOK, notice, "", Contact{})
}

// contactRefusal is a refused change of the address book as a sentence.
func contactRefusal(err error) string {
	var ce *contacts.ContactError
	var what string
	switch {
	case errors.As(err, &ce):
		field := map[string]string{"name": "The name", "address": "The email address", "phone": "The phone number"}[ce.Field]
		what = fmt.Sprintf("%s %q %v", field, ce.Value, ce.Err)
	case errors.Is(err, contacts.ErrNoContact):
		what = "There is no such contact"
	default:
		what = err.Error()
		what = strings.ToUpper(what[:1]) + what[1:]
	}
	return "Not saved: " + strings.TrimSuffix(what, ".") + "."
}

type profilesView struct {
	Profiles []profiles.Named
	Edit     profileForm
}

// profileForm is a profile as its form shows it.
type profileForm struct {
	Name                             string
	Watermark, WatermarkStyle        string
	Stamp                            bool
	Title, Author, Subject, Keywords string
	PDFA                             int
	Encrypt                          bool
	Permissions                      string
	MailTo                           string
	Optimize                         bool
}

func formOf(n profiles.Named) profileForm {
	p := n.Profile
	return profileForm{Name: n.Name, Watermark: p.Watermark, WatermarkStyle: p.WatermarkStyle, Stamp: p.Stamp,
		Title: p.Title, Author: p.Author, Subject: p.Subject, Keywords: p.Keywords, PDFA: p.PDFA, Encrypt: p.Encrypt,
		Permissions: p.Permissions, MailTo: strings.Join(p.MailTo, ", "), Optimize: p.Optimize != nil && *p.Optimize}
}

func (f profileForm) profile() config.Profile {
	p := config.Profile{Watermark: f.Watermark, WatermarkStyle: f.WatermarkStyle, Stamp: f.Stamp, Title: f.Title,
		Author: f.Author, Subject: f.Subject, Keywords: f.Keywords, PDFA: f.PDFA, Encrypt: f.Encrypt,
		Permissions: f.Permissions}
	if f.Optimize {
		p.Optimize = &f.Optimize
	}
	for _, m := range strings.Split(f.MailTo, ",") {
		if m = strings.TrimSpace(m); m != "" {
			p.MailTo = append(p.MailTo, m)
		}
	}
	return p
}

// profilesPage is the user's own profiles; ?edit=NAME fills the form
// with one of them.
func (s *Server) profilesPage(w http.ResponseWriter, r *http.Request) {
	var edit profileForm
	if name := r.URL.Query().Get("edit"); name != "" && s.opts.Profiles != nil {
		if p, err := s.opts.Profiles.Get(user(r).Name, name); err == nil {
			edit = formOf(profiles.Named{Name: name, Profile: p})
		}
	}
	s.showProfiles(w, r, http.StatusOK, "", "", edit)
}

func (s *Server) showProfiles(w http.ResponseWriter, r *http.Request, status int, notice, msg string, edit profileForm) {
	if s.opts.Profiles == nil {
		s.problem(w, r, http.StatusNotFound, "calq serve keeps no profiles.")
		return
	}
	ps, err := s.opts.Profiles.List(user(r).Name)
	if err != nil && msg == "" {
		status, msg, _ = s.internalError("read the profiles", err)
	}
	s.render(w, r, status, "profiles", page{Title: "Profiles", Nav: "profiles", Notice: notice, Error: msg,
		Data: profilesView{Profiles: ps, Edit: edit}})
}

// profilesSubmit saves (action save) or deletes (action remove) one of
// the user's profiles. An encrypting profile holds no password: they are
// typed in the convert form each time.
func (s *Server) profilesSubmit(w http.ResponseWriter, r *http.Request) {
	if s.opts.Profiles == nil {
		s.problem(w, r, http.StatusNotFound, "calq serve keeps no profiles.")
		return
	}
	if err := readForm(w, r); err != nil {
		s.showProfiles(w, r, http.StatusBadRequest, "", err.Error(), profileForm{})
		return
	}
	v := r.PostForm
	f := profileForm{Name: strings.TrimSpace(v.Get("name")), Watermark: v.Get("watermark"), WatermarkStyle: v.Get("watermark_style"),
		Stamp: v.Get("stamp") != "", Title: v.Get("title"), Author: v.Get("author"), Subject: v.Get("subject"),
		Keywords: v.Get("keywords"), Encrypt: v.Get("encrypt") != "", Permissions: v.Get("permissions"),
		MailTo: v.Get("mail_to"), Optimize: v.Get("optimize") != ""}
	u := user(r).Name
	var err error
	var notice string
	switch v.Get("action") {
	case "save":
		if p := v.Get("pdfa"); p != "" && p != "0" {
			if f.PDFA, err = strconv.Atoi(p); err != nil || f.PDFA < 1 || f.PDFA > 3 {
				err = fmt.Errorf("PDF/A part %q is not 1, 2 or 3", p)
			}
		}
		if err == nil {
			err = s.opts.Profiles.Put(u, f.Name, f.profile())
		}
		notice = "Saved the profile " + f.Name + "."
	case "remove":
		err, notice = s.opts.Profiles.Delete(u, f.Name), "Removed the profile "+f.Name+"."
	default:
		err = fmt.Errorf("unknown action %q", v.Get("action"))
	}
	if err != nil {
		status, msg := s.refusedChange("change the profiles", err)
		s.showProfiles(w, r, status, "", msg, f)
		return
	}
	s.showProfiles(w, r, http.StatusOK, notice, "", profileForm{})
}

// BookContacts is a Contacts over the journal's address book, one book
// per user (contacts.Book.Owner).
type BookContacts struct{ Book *contacts.Book }

// List is owner's contacts, sorted by name.
func (b BookContacts) List(ctx context.Context, owner string) ([]Contact, error) {
	cs, err := b.Book.Owner(owner).List(ctx)
	out := make([]Contact, len(cs))
	for i, c := range cs {
		out[i] = Contact{Name: c.Name, Address: c.Address, Phone: c.Phone}
	}
	return out, err
}

// Set adds or changes a contact of owner's book: its address and its
// number.
func (b BookContacts) Set(ctx context.Context, owner string, c Contact) error {
	return b.Book.Owner(owner).Set(ctx, contacts.Contact{Name: c.Name, Address: c.Address, Phone: c.Phone})
}

// Remove removes a contact of owner's book.
func (b BookContacts) Remove(ctx context.Context, owner, name string) error {
	return b.Book.Owner(owner).Remove(ctx, name)
}
