package serve

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"calq/convert/contacts"
	bt "calq/internal/browsertest"
	"calq/internal/config"
	"calq/internal/phone"
	"calq/internal/serve/profiles"
	"calq/internal/serve/users"
	"calq/internal/serve/web"
	"calq/sched/journal"
)

// patternInputs are the inputs of the templates with a pattern
// attribute, by template and input name, and the check of the server
// that the pattern stands for (nil: accepted).
var patternInputs = map[string]func(t *testing.T, value string) error{
	"contacts.html name": func(t *testing.T, v string) error {
		j, err := journal.Open(context.Background(), filepath.Join(t.TempDir(), "book.db"), journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		book, err := contacts.Open(context.Background(), j)
		if err != nil {
			t.Fatal(err)
		}
		return book.Owner("alice").Add(context.Background(), v, "someone@example.org")
	},
	"contacts.html phone": func(t *testing.T, v string) error { _, err := phone.Normalize(v); return err },
	"users.html name":     func(t *testing.T, v string) error { return users.CheckName(v) },
	"profiles.html name": func(t *testing.T, v string) error {
		ps, err := profiles.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return ps.Put("alice", v, config.Profile{})
	},
}

// TestPatternsMeanTheServer: each pattern attribute of the templates
// accepts what the server's check accepts and refuses what it refuses
// (of the values its maxlength lets through), and every pattern has its
// check here.
func TestPatternsMeanTheServer(t *testing.T) {
	input := regexp.MustCompile(`<input [^>]*>`)
	attr := func(tag, name string) string {
		m := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindStringSubmatch(tag)
		if m == nil {
			return ""
		}
		return m[1]
	}
	names, err := fs.Glob(web.Templates, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	samples := []string{"alice", "a", "Ops.Team_2-x", "ops@example.com", "a-b", "-", "a b", "a/b", "a:b", "zoë", "",
		"a\tb", "a\x01", "../x", "a]b", "a\\b", "a,b", " a", "a ", "Directeur général (finances)",
		strings.Repeat("x", 64), strings.Repeat("x", 65),
		"+49 151 2345-678", "(0151) 234.56.78", "0151/2345678", "0151\u00a02345678", "112", "12", "+49 CALL", "++49123", "49+151",
		"123456789012345678901", "12345678901234567890", " +4711 "}
	found := 0
	for _, name := range names {
		b, err := fs.ReadFile(web.Templates, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range input.FindAllString(string(b), -1) {
			p := attr(tag, "pattern")
			if p == "" {
				continue
			}
			key := strings.TrimPrefix(name, "templates/") + " " + attr(tag, "name")
			check := patternInputs[key]
			if check == nil {
				t.Errorf("%s: pattern %q has no server check in patternInputs", key, p)
				continue
			}
			found++
			re := regexp.MustCompile(`^(?:` + p + `)$`)
			max := 1 << 30
			fmt.Sscan(attr(tag, "maxlength"), &max)
			for _, v := range samples {
				if len(v) > max {
					continue // the browser refuses it whatever the pattern: not the pattern's business
				}
				browser := re.MatchString(v)
				if server := check(t, v) == nil; browser != server {
					t.Errorf("%s: %q: the pattern %q accepts it %v, the server %v", key, v, p, browser, server)
				}
			}
		}
	}
	if found != len(patternInputs) {
		t.Errorf("found %d pattern attributes, want the %d of patternInputs", found, len(patternInputs))
	}
}

// checkPatterns checks that every pattern attribute of the page in ctx
// is a regular expression in the browser's own terms (the v flag, as
// Chromium compiles them): one it cannot compile is ignored, and the
// browser's check of the field with it.
func checkPatterns(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	bad, err := bt.Eval[[]string](ctx, `[...document.querySelectorAll("input[pattern]")].map(e => e.getAttribute("pattern"))
	  .filter(p => { try { new RegExp("^(?:" + p + ")$", "v"); return false } catch { return true } })`)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("%s: pattern attributes that are no regular expression with the v flag: %q", page, bad)
	}
}

// TestPatternsInBrowser: the browser's own check of the fields with a
// pattern works: a value the server refuses makes the field invalid, one
// it takes valid, and the console never says that a pattern is invalid.
func TestPatternsInBrowser(t *testing.T) {
	ts := pageServer(t, nil)
	b := bt.New(t)
	ctx := b.Tab(t)
	console := bt.Console(t, ctx)
	browserSignIn(t, ctx, ts.URL, "root")
	tests := []struct {
		page, sel string
		good, bad []string
	}{
		{"/admin/users", "#add-name", []string{"carol", "ops@example.com", "a-b_c.d"}, []string{"car ol", "a/b", "zoë", "a:b"}},
		{"/profiles", `#profile-form input[name="name"]`, []string{"legal", "a-b_c.d"}, []string{"le gal", "../x", "a@b"}},
		{"/contacts", `#contact-form input[name="name"]`, []string{"boss", "Directeur général (finances)", "x"}, []string{"a@b", "a,b", " lead", "lead "}},
		{"/contacts", `#contact-phone`, []string{"+49 151 2345-678", "(0151) 234.56.78", "0151/2345678", "112"}, []string{"12", "+49 CALL", "++49123", "123456789012345678901"}},
	}
	for _, tt := range tests {
		if _, err := bt.Navigate(ctx, ts.URL+tt.page); err != nil {
			t.Fatal(err)
		}
		checkPatterns(t, ctx, tt.page)
		for i, v := range append(tt.good, tt.bad...) {
			want := i < len(tt.good)
			expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; return e.checkValidity(); })()`, tt.sel, v)
			got, err := bt.Eval[bool](ctx, expr)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s %s = %q: checkValidity() = %v, want %v", tt.page, tt.sel, v, got, want)
			}
		}
	}
	for _, m := range console.Messages() {
		if strings.Contains(m, "Pattern attribute value") {
			t.Errorf("the console says: %s", m)
		}
	}
}
