package profiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"calq/internal/config"
)

func openStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "profiles")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

var yes, no = true, false

// full sets every key a user's profile may hold.
var full = config.Profile{
	Watermark: "DRAFT", WatermarkStyle: "font:Helvetica, points:48", Stamp: true,
	Title: "Report", Author: "Alice", Subject: "Q1", Keywords: "q1, report",
	Encrypt: true, Permissions: "print", PDFA: 2, Optimize: &no, MailTo: []string{"boss", "audit@example.org"},
}

// TestStore puts, lists, gets and deletes profiles of two users, and
// checks that calq convert --config reads the same records.
func TestStore(t *testing.T) {
	s, dir := openStore(t)
	if ps, err := s.List("alice"); err != nil || len(ps) != 0 {
		t.Fatalf("List() of a new user = %v, %v, want none", ps, err)
	}
	must(t, s.Put("alice", "report", full))
	must(t, s.Put("alice", "a.b-c_1", config.Profile{Optimize: &yes}))
	must(t, s.Put("bob", "report", config.Profile{Title: "Bob's"}))
	must(t, s.Put("alice", "draft", config.Profile{Watermark: "x"}))
	must(t, s.Put("alice", "draft", config.Profile{Watermark: "DRAFT"})) // replaces

	want := []Named{{"a.b-c_1", config.Profile{Optimize: &yes}}, {"draft", config.Profile{Watermark: "DRAFT"}}, {"report", full}}
	if got, err := s.List("alice"); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("List(alice) = %+v, %v, want %+v", got, err, want)
	}
	if got, err := s.Get("bob", "report"); err != nil || !reflect.DeepEqual(got, config.Profile{Title: "Bob's"}) {
		t.Errorf("Get(bob, report) = %+v, %v", got, err)
	}

	// The file is calq's config file format: calq convert reads it.
	path, err := s.Path("alice")
	if err != nil || path != filepath.Join(dir, "alice.toml") {
		t.Fatalf("Path(alice) = %q, %v", path, err)
	}
	cfg, err := config.Load(path)
	must(t, err)
	if p, err := cfg.Profile("report"); err != nil || !reflect.DeepEqual(p, full) {
		t.Errorf("config.Load(%s).Profile(report) = %+v, %v, want %+v", path, p, err, full)
	}
	data, err := os.ReadFile(path)
	must(t, err)
	if strings.Contains(string(data), "owner_password_file") || !strings.Contains(string(data), `[profiles."a.b-c_1"]`) {
		t.Errorf("the file holds unset keys or misses a quoted name:\n%s", data)
	}
	for p, want := range map[string]fs.FileMode{dir: 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("mode of %s = %v, %v, want %v", p, fi.Mode().Perm(), err, want)
		}
	}

	// Get and Delete of what a user does not have.
	for _, tt := range []struct{ user, name string }{{"bob", "draft"}, {"carol", "report"}} {
		if _, err := s.Get(tt.user, tt.name); !errors.Is(err, ErrNoProfile) ||
			err.Error() != fmt.Sprintf("get the profile %q of %s: no such profile", tt.name, tt.user) {
			t.Errorf("Get(%s, %s) error = %v, want ErrNoProfile", tt.user, tt.name, err)
		}
		if err := s.Delete(tt.user, tt.name); !errors.Is(err, ErrNoProfile) {
			t.Errorf("Delete(%s, %s) error = %v, want ErrNoProfile", tt.user, tt.name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "carol.toml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Delete of a user without profiles made a file: %v", err)
	}

	must(t, s.Delete("alice", "draft"))
	if got, err := s.List("alice"); err != nil || !reflect.DeepEqual(got, []Named{want[0], want[2]}) {
		t.Errorf("List(alice) after Delete(draft) = %+v, %v", got, err)
	}
	// The last profile gone, the file is gone.
	must(t, s.Delete("bob", "report"))
	if _, err := os.Stat(filepath.Join(dir, "bob.toml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("bob.toml after its last profile was deleted: %v", err)
	}
	must(t, s.DeleteUser("alice"))
	must(t, s.DeleteUser("alice"))
	if got, err := s.List("alice"); err != nil || len(got) != 0 {
		t.Errorf("List(alice) after DeleteUser = %v, %v", got, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Errorf("the directory holds %v, %v, want nothing", entries, err)
	}
}

func TestPutInvalid(t *testing.T) {
	const rule = "a profile's name is 1 to 64 letters a-z and A-Z, digits and - _ ."
	s, dir := openStore(t)
	tests := []struct {
		name, user, pname string
		p                 config.Profile
		err               string
	}{
		{"empty name", "alice", "", config.Profile{}, `name "": ` + rule},
		{"long name", "alice", strings.Repeat("x", 65), config.Profile{}, `name "xxx` + strings.Repeat("x", 62) + `": ` + rule},
		{"space", "alice", "my profile", config.Profile{}, `name "my profile": ` + rule},
		{"slash", "alice", "../x", config.Profile{}, `name "../x": ` + rule},
		{"unicode", "alice", "zoë", config.Profile{}, `name "zoë": ` + rule},
		{"user empty", "", "p", config.Profile{}, `user name "" is empty`},
		{"user path", "../etc/x", "p", config.Profile{}, `user name "../etc/x" contains '/': a name has only letters a-z and A-Z, digits and . _ - @`},
		{"pdfa", "alice", "p", config.Profile{PDFA: 4}, "profiles.p.pdfa: 4 is not a PDF/A part (0, 1, 2 or 3)"},
		{"permissions and mail_to", "alice", "p", config.Profile{Permissions: "some", MailTo: []string{" "}},
			"profiles.p.permissions: \"some\" is not one of none, print, all\nprofiles.p.mail_to: entry 1: empty recipient"},
		{"watermark image", "alice", "p", config.Profile{WatermarkImage: "/etc/shadow"},
			"profiles.p: watermark_image: a profile of calq serve names no file on the server"},
		{"all files", "alice", "p", config.Profile{Encrypt: true, OwnerPasswordFile: "o", UserPasswordFile: "u", Out: "/tmp"},
			"profiles.p: owner_password_file, user_password_file, out: a profile of calq serve names no file on the server"},
		{"check and files", "alice", "p", config.Profile{Watermark: "w", WatermarkImage: "i.png"},
			"profiles.p: watermark and watermark_image exclude each other\n" +
				"profiles.p: watermark_image: a profile of calq serve names no file on the server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Put(tt.user, tt.pname, tt.p)
			want := fmt.Sprintf("put the profile %q of %s: invalid: %s", tt.pname, tt.user, tt.err)
			if !errors.Is(err, ErrInvalid) || err.Error() != want {
				t.Errorf("Put(%q, %q) error =\n%v\nwant\n%s", tt.user, tt.pname, err, want)
			}
		})
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("refused profiles left %v, %v", entries, err)
	}
}

// TestUserNameStaysInDir: every name users.CheckName accepts is a file
// directly in the store's directory.
func TestUserNameStaysInDir(t *testing.T) {
	s, dir := openStore(t)
	for _, user := range []string{".", "..", "...", "a@b", "-x"} {
		must(t, s.Put(user, "p", config.Profile{Title: user}))
		path, err := s.Path(user)
		if err != nil || filepath.Dir(path) != dir {
			t.Errorf("Path(%q) = %q, %v, want a file of %s", user, path, err, dir)
		}
		if p, err := s.Get(user, "p"); err != nil || p.Title != user {
			t.Errorf("Get(%q, p) = %+v, %v", user, p, err)
		}
	}
}

// TestHandEdited: a file an administrator wrote by hand is read when it
// holds profiles only, refused when it holds more or names files.
func TestHandEdited(t *testing.T) {
	s, dir := openStore(t)
	tests := []struct{ name, file, err string }{
		{"profiles", "[profiles.a]\ntitle = \"T\"\n", ""},
		{"smtp", "[smtp]\nhost = \"mail\"\n", "%s: holds more than [profiles.NAME] tables"},
		{"file", "[profiles.a]\nuser_password_file = \"pw\"\n", "%s: profiles.a: user_password_file: a profile of calq serve names no file on the server"},
		{"syntax", "[profiles.a\n", "%s:2: expected '.' or ']' to end table name, but got '\\n' instead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "u.toml")
			must(t, os.WriteFile(path, []byte(tt.file), 0o600))
			_, err := s.List("u")
			want := ""
			if tt.err != "" {
				want = "list the profiles of u: " + fmt.Sprintf(tt.err, path)
			}
			if errString(err) != want {
				t.Errorf("List() error =\n%v\nwant\n%s", err, want)
			}
			if err := s.Put("u", "b", config.Profile{}); (err == nil) != (tt.err == "") {
				t.Errorf("Put() on it error = %v", err)
			}
		})
	}
}

func TestOpenMakesDirPrivate(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Chmod(dir, 0o755))
	stale := filepath.Join(dir, ".calq-write-999999999-1")
	must(t, os.WriteFile(stale, []byte("x"), 0o600))
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("Open left the directory %v, %v, want 0700", fi.Mode().Perm(), err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open left a dead process's temporary file: %v", err)
	}
}

// TestConcurrent puts and deletes profiles of one user from many
// goroutines: none is lost.
func TestConcurrent(t *testing.T) {
	s, _ := openStore(t)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			name := fmt.Sprintf("p%02d", i)
			if err := s.Put("alice", name, config.Profile{PDFA: i%3 + 1}); err != nil {
				t.Error(err)
			}
			if i%2 == 1 {
				if err := s.Delete("alice", name); err != nil {
					t.Error(err)
				}
			}
			if _, err := s.List("alice"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.List("alice")
	if err != nil || len(got) != 8 || got[0].Name != "p00" || got[7].Name != "p14" || got[7].Profile.PDFA != 3 {
		t.Errorf("List() = %+v, %v, want p00, p02 ... p14", got, err)
	}
}
