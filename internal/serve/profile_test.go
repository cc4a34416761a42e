package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"calq/convert/pdf"
	"calq/internal/config"
	"calq/internal/serve/users"
)

func TestTaskFromProfile(t *testing.T) {
	yes := true
	none, err := pdf.ParsePermissions("none")
	if err != nil {
		t.Fatal(err)
	}
	print, err := pdf.ParsePermissions("print")
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{"/s/owner": "own3r", "/s/user": "us3r"}
	readSecret := func(path string) (string, error) {
		if s, ok := secrets[path]; ok {
			return s, nil
		}
		return "", fmt.Errorf("read %s: no such file", path)
	}
	tests := []struct {
		name string
		p    config.Profile
		want Task
		err  string
	}{
		{"empty", config.Profile{}, Task{}, ""},
		{"watermark, PDF/A, mail", config.Profile{Watermark: "DRAFT", WatermarkStyle: "points:48", PDFA: 2, MailTo: []string{"boss"}},
			Task{PDFA: 2, MailTo: []string{"boss"}, Post: pdf.Post{Watermark: &pdf.Watermark{Text: "DRAFT", Style: "points:48"}}}, ""},
		{"stamp image", config.Profile{WatermarkImage: "/i.png", Stamp: true},
			Task{Post: pdf.Post{Stamp: &pdf.Watermark{Image: "/i.png"}}}, ""},
		{"title names the result", config.Profile{Title: "Board pack"},
			Task{Title: "Board pack", Post: pdf.Post{Metadata: &pdf.Metadata{Title: "Board pack"}}}, ""},
		{"metadata, optimize", config.Profile{Author: "Ann", Keywords: "k", Optimize: &yes},
			Task{Post: pdf.Post{Metadata: &pdf.Metadata{Author: "Ann", Keywords: "k"}, Optimize: true}}, ""},
		{"encrypt", config.Profile{Encrypt: true, OwnerPasswordFile: "/s/owner", UserPasswordFile: "/s/user", Permissions: "print"},
			Task{Post: pdf.Post{Encrypt: &pdf.Encryption{OwnerPassword: "own3r", UserPassword: "us3r", Permissions: print}}}, ""},
		{"encrypt, default permissions", config.Profile{Encrypt: true, OwnerPasswordFile: "/s/owner"},
			Task{Post: pdf.Post{Encrypt: &pdf.Encryption{OwnerPassword: "own3r", Permissions: none}}}, ""},
		{"encrypt without owner file", config.Profile{Encrypt: true}, Task{}, "encrypt needs owner_password_file"},
		{"secret unreadable", config.Profile{Encrypt: true, OwnerPasswordFile: "/s/owner", UserPasswordFile: "/gone"},
			Task{}, "read /gone: no such file"},
		{"bad permissions", config.Profile{Encrypt: true, OwnerPasswordFile: "/s/owner", Permissions: "some"}, Task{}, "permissions: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TaskFromProfile(tt.p, readSecret)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Errorf("TaskFromProfile() error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("TaskFromProfile() = %+v, %v, want %+v", got, err, tt.want)
			}
		})
	}
}

// recordingMailer records the owners and recipients it is given; "nobody"
// is a contact no book has.
type recordingMailer struct {
	mu     sync.Mutex
	checks []string // owner: recipients
	sends  []string // owner: recipients: names
}

func (m *recordingMailer) Check(ctx context.Context, owner string, to []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checks = append(m.checks, owner+": "+strings.Join(to, ","))
	if slices.Contains(to, "nobody") {
		return errors.New(`no such contact: "nobody"`)
	}
	return nil
}

func (m *recordingMailer) Send(ctx context.Context, owner string, to, files, names []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sends = append(m.sends, owner+": "+strings.Join(to, ",")+": "+strings.Join(names, ","))
	return nil
}

func (m *recordingMailer) recorded() (checks, sends []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.checks), slices.Clone(m.sends)
}

// TestMailOwner: the recipients of a request are checked and its result
// sent in the address book of the request's user.
func TestMailOwner(t *testing.T) {
	m := &recordingMailer{}
	ts := newTestServer(t, func(o *Options) { o.Mail = m })
	ctx := context.Background()
	header := map[string]http.Header{}
	for _, name := range []string{"ann", "bob"} {
		if _, err := ts.Users.Add(ctx, users.User{Name: name}); err != nil {
			t.Fatal(err)
		}
		key, err := ts.Users.NewKey(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		header[name] = bearer(key)
	}
	url := ts.URL + "/forms/libreoffice/convert"
	for _, name := range []string{"ann", "bob"} {
		resp := post(t, url, []upload{{"files", name + ".txt", []byte("x\n")}}, map[string]string{"mailTo": "boss, a@example.org"}, header[name])
		if b := body(t, resp); resp.StatusCode != 200 {
			t.Fatalf("%s's request: %d %s", name, resp.StatusCode, b)
		}
	}
	resp := post(t, url, []upload{{"files", "c.txt", []byte("x\n")}}, map[string]string{"mailTo": "nobody"}, header["bob"])
	if b := string(body(t, resp)); resp.StatusCode != 400 || !strings.Contains(b, "nobody") {
		t.Errorf("an unknown contact: %d %s, want 400 naming it", resp.StatusCode, b)
	}

	// The mail goes after the reply.
	checks, sends := m.recorded()
	for deadline := time.Now().Add(time.Minute); len(sends) < 2 && time.Now().Before(deadline); checks, sends = m.recorded() {
		time.Sleep(20 * time.Millisecond)
	}
	slices.Sort(sends)
	wantChecks := []string{"ann: boss,a@example.org", "bob: boss,a@example.org", "bob: nobody"}
	wantSends := []string{"ann: boss,a@example.org: ann.pdf", "bob: boss,a@example.org: bob.pdf"}
	if !reflect.DeepEqual(checks, wantChecks) || !reflect.DeepEqual(sends, wantSends) {
		t.Errorf("checks %q, sends %q, want %q, %q", checks, sends, wantChecks, wantSends)
	}
}
