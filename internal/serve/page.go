package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"
	"unicode"

	"calq/internal/config"
	"calq/internal/serve/profiles"
	"calq/internal/serve/users"
	"calq/internal/serve/web"
)

// Accounts is what the pages need of the users: passwords, sessions and
// the administrator's changes (*users.Store has it).
type Accounts interface {
	Users
	CheckPassword(ctx context.Context, name, password string) (users.User, error)
	NewSession(ctx context.Context, name string, ttl time.Duration) (string, error)
	Session(ctx context.Context, token string) (users.User, error)
	EndSession(ctx context.Context, token string) error
	List(ctx context.Context) ([]users.User, error)
	Add(ctx context.Context, u users.User) (users.User, error)
	AddWithPassword(ctx context.Context, u users.User, password string) (users.User, error)
	SetAdmin(ctx context.Context, name string, admin bool, guards ...users.Guard) error
	SetDisabled(ctx context.Context, name string, disabled bool, guards ...users.Guard) error
	SetPassword(ctx context.Context, name, password string) error
	RevokeKeys(ctx context.Context, name string) (int, error)
	NewKey(ctx context.Context, name string) (string, error)
	Get(ctx context.Context, name string) (users.User, error)
	Remove(ctx context.Context, name string, guards ...users.Guard) error
}

// Contacts is each user's address book, as the pages edit it.
type Contacts interface {
	List(ctx context.Context, owner string) ([]Contact, error)
	// Set adds c, or replaces the address and the number its name had.
	Set(ctx context.Context, owner string, c Contact) error
	Remove(ctx context.Context, owner, name string) error
}

// Contact is an entry of an address book: an e-mail address, a phone
// number or both ("" for none).
type Contact struct {
	Name    string
	Address string
	Phone   string
}

// Profiles is each user's conversion profiles (*profiles.Store has it).
type Profiles interface {
	List(user string) ([]profiles.Named, error)
	Get(user, name string) (config.Profile, error)
	Put(user, name string, p config.Profile) error
	Delete(user, name string) error
}

// sessionCookie names the browser's session; under TLS it is
// __Host-prefixed, so that it is Secure, host-only and for the whole
// site.
const (
	sessionCookie    = "calq_session"
	sessionCookieTLS = "__Host-calq_session"
)

// page is what every template gets.
type page struct {
	Title   string
	User    users.User
	Nav     string // the menu entry of the page
	Error   string // shown above the content
	Notice  string
	Refresh bool // reload every 2 s without JavaScript
	SMS     bool // the menu links to the SMS page (smsNav)
	Data    any
}

// templates parses each page with the layout once.
type templates struct {
	once sync.Once
	set  map[string]*template.Template
	err  error
}

// pageFuncs are the templates' helpers. Sizes and durations keep their
// number and unit together (a no-break space); dates are a <time>,
// which the style sheet keeps on one line.
var pageFuncs = template.FuncMap{
	"when":     when,
	"bytes":    func(n int64) string { return nbsp(humanBytes(n)) },
	"plural":   plural,
	"duration": func(d time.Duration) string { return nbsp(humanDuration(d)) },
}

// when is t for people, in the server's time zone: a <time> element
// (RFC 3339 in its datetime) showing "2006-01-02 15:04:05"; nothing for
// the zero time.
func when(t time.Time) template.HTML {
	if t.IsZero() {
		return ""
	}
	t = t.Local()
	// Both layouts make digits, '-', ':', 'T', 'Z' and '+' only: nothing
	// to escape.
	return template.HTML(`<time datetime="` + t.Format(time.RFC3339) + `">` + t.Format("2006-01-02 15:04:05") + `</time>`)
}

// nbsp joins a value's number and unit ("1.5 KiB") with a no-break space.
func nbsp(s string) string { return strings.Replace(s, " ", "\u00a0", 1) }

// plural is "1 job", "2 jobs".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// humanDuration is d for people: "24 hours", "30 days", "90 minutes".
func humanDuration(d time.Duration) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return plural(int(d/(24*time.Hour)), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	}
	return d.String()
}

func (t *templates) get(name string) (*template.Template, error) {
	t.once.Do(func() {
		t.set = map[string]*template.Template{}
		names, err := fs.Glob(web.Templates, "templates/*.html")
		if err != nil {
			t.err = err
			return
		}
		for _, n := range names {
			base := path.Base(n)
			if base == "layout.html" {
				continue
			}
			tp, err := template.New("layout.html").Funcs(pageFuncs).ParseFS(web.Templates, "templates/layout.html", n)
			if err != nil {
				t.err = fmt.Errorf("parse page %s: %w", base, err)
				return
			}
			t.set[strings.TrimSuffix(base, ".html")] = tp
		}
	})
	if t.err != nil {
		return nil, t.err
	}
	tp := t.set[name]
	if tp == nil {
		return nil, fmt.Errorf("no page template %q", name)
	}
	return tp, nil
}

var pageTemplates templates

// securePage sets the headers of every page: no framing, no sniffing,
// scripts and styles from the server only, no referrer beyond it.
func securePage(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "+
		"style-src 'self'; img-src 'self' data: blob:; worker-src 'self' blob:; object-src 'none'; "+
		"frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// render writes template name with p, status first; a template that
// fails answers 500 without half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	if p.User.Name == "" {
		p.User = user(r)
	}
	p.SMS = s.smsNav(r, p.User)
	tp, err := pageTemplates.get(name)
	var buf bytes.Buffer
	if err == nil {
		err = tp.ExecuteTemplate(&buf, "layout.html", p)
	}
	securePage(w.Header())
	if err != nil {
		s.opts.Log.Error("render a page", "page", name, "err", err)
		fail(w, http.StatusInternalServerError, "calq serve could not draw the page "+name)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// problem answers a page with an error message and nothing else.
func (s *Server) problem(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.render(w, r, status, "problem", page{Title: http.StatusText(status), Error: msg})
}

// pageRoutes adds the browser's pages to m: sign-in and out, converting,
// jobs, viewing, history, the address book and profiles, and the
// administrator's pages. Every page but the sign-in needs a session;
// writes from another site are refused (http.CrossOriginProtection).
func (s *Server) pageRoutes(m *http.ServeMux) {
	files := http.FileServerFS(web.Static)
	m.Handle("GET /static/", http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})))
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.problem(w, r, http.StatusForbidden, "Refused: this request came from another site. Use calq's own pages.")
	}))
	open := func(pattern string, h http.HandlerFunc) { m.Handle(pattern, cop.Handler(h)) }
	signed := func(pattern string, h http.HandlerFunc) { m.Handle(pattern, cop.Handler(s.session(h, false))) }
	admin := func(pattern string, h http.HandlerFunc) { m.Handle(pattern, cop.Handler(s.session(h, true))) }

	m.Handle("GET /{$}", s.session(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/convert", http.StatusSeeOther)
	}, false))
	open("GET /login", s.loginPage)
	open("POST /login", s.login)
	open("POST /logout", s.logout)
	signed("GET /convert", s.convertPage)
	signed("POST /convert", s.convertSubmit)
	signed("GET /job/{id}", s.jobPage)
	signed("GET /job/{id}/events", s.streamLimit(s.jobEvents))
	signed("GET /job/{id}/view/{n}", s.viewPage)
	signed("GET /job/{id}/file/{n}", s.jobFile)
	signed("GET /job/{id}/zip", s.jobZip)
	signed("POST /job/{id}/mail", s.jobMail)
	signed("GET /history", s.historyPage)
	signed("GET /messages", s.smsPage)
	signed("POST /messages", s.smsSubmit)
	signed("GET /messages/events", s.streamLimit(s.smsEvents))
	signed("GET /contacts", s.contactsPage)
	signed("POST /contacts", s.contactsSubmit)
	signed("GET /profiles", s.profilesPage)
	signed("POST /profiles", s.profilesSubmit)
	admin("GET /admin/users", s.usersPage)
	admin("POST /admin/users", s.usersSubmit)
	admin("GET /admin/log", s.logPage)
	admin("GET /admin/monitor", s.monitorPage)
}

// session lets a request through with a valid session cookie (and, for
// admin pages, an administrator's), its user in the context; else it
// sends the browser to the sign-in page. Without accounts, or before the
// first user exists, it says how to create the administrator.
func (s *Server) session(next http.HandlerFunc, admin bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var u users.User
		err := errNoAccounts
		if s.opts.Accounts != nil {
			var c *http.Cookie
			if c, err = r.Cookie(s.cookieName(r)); err == nil {
				u, err = s.opts.Accounts.Session(r.Context(), c.Value)
			}
		}
		if err != nil {
			if s.pagesOff(w, r) {
				return
			}
			if r.Method != http.MethodGet || strings.HasSuffix(r.URL.Path, "/events") {
				s.problem(w, r, http.StatusUnauthorized, "Your session has ended: sign in again.")
				return
			}
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		r = r.WithContext(users.WithUser(r.Context(), u))
		if admin && !u.Admin {
			s.problem(w, r, http.StatusForbidden, "Forbidden: this page is for administrators.")
			return
		}
		next(w, r)
	}
}

var errNoAccounts = errors.New("calq serve has no accounts")

// pagesOff answers, and says so, when no one can sign in: calq serve has
// no accounts, or no user yet (then the page says how to make the
// administrator). A valid session never gets here: the count of users is
// read only for a request without one.
func (s *Server) pagesOff(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.Accounts == nil {
		s.problem(w, r, http.StatusNotFound, "calq serve was started without accounts: its pages are off.")
		return true
	}
	if exist, err := s.usersExist(r.Context(), s.opts.Accounts); err != nil || !exist {
		// The root is the API's home, which clients probe with GET /:
		// the page is there and says what to do. Other pages cannot
		// be used yet.
		status := http.StatusServiceUnavailable
		if r.URL.Path == "/" && err == nil {
			status = http.StatusOK
		}
		s.render(w, r, status, "setup", page{Title: "Set up calq"})
		return true
	}
	return false
}

// readForm reads a page's urlencoded form, at most 64 KiB.
func readForm(w http.ResponseWriter, r *http.Request) error {
	return readFormMax(w, r, 64<<10)
}

// readFormMax reads a page's urlencoded form, at most max bytes.
func readFormMax(w http.ResponseWriter, r *http.Request, max int64) error {
	r.Body = http.MaxBytesReader(w, r.Body, max)
	if err := r.ParseForm(); err != nil {
		return fmt.Errorf("The form could not be read: %w", err)
	}
	return nil
}

func (s *Server) cookieName(r *http.Request) string {
	if r.TLS != nil {
		return sessionCookieTLS
	}
	return sessionCookie
}

// setSession gives the browser its session cookie; an empty token
// removes it.
func (s *Server) setSession(w http.ResponseWriter, r *http.Request, token string) {
	c := &http.Cookie{Name: s.cookieName(r), Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil}
	if token == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// localPath is next when it is a path of this server, else "/convert":
// a sign-in never sends the browser elsewhere. Browsers drop tabs and
// newlines from a URL ("/\t/evil" is "//evil"), and read "\" as "/", so
// a next with either, or with any control character, is refused too.
func localPath(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsRune(next, '\\') || strings.ContainsFunc(next, unicode.IsControl) {
		return "/convert"
	}
	return next
}

// humanBytes is a size for people: 1.5 MiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
