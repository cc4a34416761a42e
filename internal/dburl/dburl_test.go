package dburl

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRedact(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"url", "postgres://calq:secret@db:5432/calq", "postgres://calq:xxxxx@db:5432/calq"},
		{"url with @ in password", "postgres://calq:p@ss@db/calq", "postgres://calq:xxxxx@db/calq"},
		{"url without password", "postgres://calq@db/calq", "postgres://calq@db/calq"},
		{"url without user", "postgres://db/calq", "postgres://db/calq"},
		{"file", "/home/me/.local/state/calq/calq.db", "/home/me/.local/state/calq/calq.db"},
		{"postgresql url", "postgresql://u:pw@h/d?sslmode=disable", "postgresql://u:xxxxx@h/d?sslmode=disable"},
		{"url password parameter", "postgres://u@h/d?sslmode=disable&password=pw&sslpassword=k", "postgres://u@h/d?sslmode=disable&password=xxxxx&sslpassword=xxxxx"},
		{"url @ in the query", "postgres://u:pw@h/d?application_name=a@b", "postgres://u:xxxxx@h/d?application_name=a@b"},
		{"dsn", "host=db user=calq password=pw dbname=calq", "host=db user=calq password=xxxxx dbname=calq"},
		{"dsn quoted", "host=db password='p w\\' x' dbname=calq", "host=db password=xxxxx dbname=calq"},
		{"dsn spaces around =", "host = db password = pw", "host = db password = xxxxx"},
		{"dsn escaped space", `password=a\ b host=db`, "password=xxxxx host=db"},
		{"dsn password last", "user=calq sslpassword=k password=pw", "user=calq sslpassword=xxxxx password=xxxxx"},
		{"dsn without password", "host=/run/postgresql dbname=calq", "host=/run/postgresql dbname=calq"},
		{"file with =", "a=b.db", "a=b.db"},
		{"other scheme", "mysql://u:pw@h/d", "mysql://u:xxxxx@h/d"},
		{"broken dsn", "host=db password='s3 cret", "host=db password=xxxxx"},
		{"broken dsn sslpassword", "user=x sslpassword=k port='5432", "user=x sslpassword=xxxxx port='5432"},
	} {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("%s: Redact(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestWithoutPassword(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"url", "postgres://calq:secret@db:5432/calq", "postgres://calq@db:5432/calq"},
		{"url parameter", "postgres://u@h/d?password=pw&sslmode=disable", "postgres://u@h/d?sslmode=disable"},
		{"url only parameter", "postgres://u@h/d?password=pw#f", "postgres://u@h/d#f"},
		{"dsn", "host=db password='p w' dbname=calq", "host=db dbname=calq"},
		{"dsn password last", "host=db password=pw  ", "host=db"},
		{"no password", "host=db dbname=calq", "host=db dbname=calq"},
	} {
		got := WithoutPassword(tt.in)
		if got != tt.want {
			t.Errorf("%s: WithoutPassword(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if HasPassword(got) {
			t.Errorf("%s: HasPassword(%q) = true after WithoutPassword", tt.name, got)
		}
	}
}

// TestPasswordsAsPgxReadsThem: for every form, the password pgx would
// send is among Passwords, so Scrub takes it out of any text.
func TestPasswordsAsPgxReadsThem(t *testing.T) {
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", "/nonexistent")
	for _, s := range []string{
		"postgres://calq:s3cret@db/calq",
		"postgres://calq:p%40ss%2Fw@db/calq",
		"postgres://calq@db/calq?password=qpw",
		"host=db user=calq password=plain dbname=calq",
		`host=db user=calq password='quo ted\'pw' dbname=calq`,
		`host=db user=calq password=esc\ aped`,
	} {
		cfg, err := pgconn.ParseConfig(s)
		if err != nil {
			t.Fatalf("pgconn.ParseConfig(%q): %v", s, err)
		}
		if !IsPostgres(s) || !HasPassword(s) {
			t.Errorf("IsPostgres(%q) = %v, HasPassword = %v, want both", s, IsPostgres(s), HasPassword(s))
		}
		text := "failed: " + cfg.Password + " and " + s
		if got := Scrub(text, s); strings.Contains(got, cfg.Password) {
			t.Errorf("Scrub(%q) = %q, still holds %q", text, got, cfg.Password)
		}
		if r := Redact(s); strings.Contains(r, cfg.Password) {
			t.Errorf("Redact(%q) = %q, holds the password", s, r)
		}
		if w := WithoutPassword(s); strings.Contains(w, cfg.Password) {
			t.Errorf("WithoutPassword(%q) = %q, holds the password", s, w)
		} else if c2, err := pgconn.ParseConfig(w); err != nil || c2.Host != cfg.Host || c2.User != cfg.User {
			t.Errorf("WithoutPassword(%q) = %q: pgx reads it as host %q user %q (%v), want %q %q", s, w, c2.Host, c2.User, err, cfg.Host, cfg.User)
		}
	}
}

func TestIsPostgres(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://h/d":               true,
		"postgresql://h/d":             true,
		"host=db dbname=calq":          true,
		"  dbname=calq  ":              true,
		"user=calq password='a b'":     true,
		"service=calq":                 true,
		"a=b.db":                       false,
		"calq.db":                      false,
		"/tmp/host=x":                  false,
		"host=db dbname='unterminated": false,
		"mysql://h/d":                  false,
		"":                             false,
		"./dbname=x":                   false,
		"journal with spaces.db":       false,
		"host=db\x00":                  false,
	} {
		if got := IsPostgres(in); got != want {
			t.Errorf("IsPostgres(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestHasScheme(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://h/d":        true,
		"sqlite://x":            true,
		"calq.db":               false,
		"/tmp/a://b":            false,
		"./postgres:/calq@h/db": false,
		"":                      false,
	} {
		if got := HasScheme(in); got != want {
			t.Errorf("HasScheme(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzScrub: whatever password pgx reads from an address, Scrub takes
// out of the address itself (and so out of a message quoting it).
func FuzzScrub(f *testing.F) {
	for _, s := range []string{"postgres://u:pw@h/d", "host=h password='a\\'b' user=u", "password=x", "postgres://u@h/d?password=p"} {
		f.Add(s)
	}
	f.Setenv("PGPASSWORD", "")
	f.Setenv("PGPASSFILE", "/nonexistent")
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := pgconn.ParseConfig(s)
		if err != nil || cfg.Password == "" || strings.Contains("xxxxx", cfg.Password) {
			return
		}
		if got := Scrub(s, s); strings.Contains(got, cfg.Password) {
			t.Errorf("Scrub(%q) = %q holds the password %q", s, got, cfg.Password)
		}
	})
}

func TestWrap(t *testing.T) {
	inner := errors.New(`cannot parse "host=db password='s3 cret'": bad`)
	db := "host=db password='s3 cret'"
	err := Wrap("open", db, inner)
	if want := `open host=db password=xxxxx: cannot parse "host=db password=xxxxx": bad`; err.Error() != want {
		t.Errorf("Wrap = %q, want %q", err, want)
	}
	if !errors.Is(err, inner) {
		t.Error("Wrap's error does not unwrap to its cause")
	}
}
