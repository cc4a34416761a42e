package serve

import (
	"bytes"
	"context"
	"errors"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"calq/internal/serve/users"
)

// TestAdminConfirms: disabling, revoking keys and deleting a user ask
// first, on a page of their own that works without JavaScript; the
// first post changes nothing, the confirmed one acts.
func TestAdminConfirms(t *testing.T) {
	ts := pageServer(t, nil)
	ctx := context.Background()
	root := browserClient(t)
	signIn(t, root, ts.URL, "root", "root-secret-pw")
	if _, err := ts.Users.NewKey(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		action string
		asks   []string // what the confirmation page says
		done   string   // the notice once confirmed
		check  func(u users.User, err error) bool
	}{
		{"revoke", []string{"Revoke the API keys of bob?", "1 API key", "stop working at once"}, "Revoked 1 API key of bob",
			func(u users.User, err error) bool { return err == nil && u.Keys == 0 }},
		{"disable", []string{"Disable bob?", "can no longer sign in", "sessions end"}, "bob is disabled",
			func(u users.User, err error) bool { return err == nil && u.Disabled }},
		{"delete", []string{"Delete bob?", "sessions", "jobs stay", "address book and profiles stay", "calq users remove"}, "Deleted bob",
			func(u users.User, err error) bool { return errors.Is(err, users.ErrNoUser) }},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			before, err := ts.Users.Get(ctx, "bob")
			if err != nil {
				t.Fatal(err)
			}
			status, page := pagePost(t, root, ts.URL+"/admin/users", url.Values{"action": {tt.action}, "name": {"bob"}})
			if status != http.StatusOK {
				t.Fatalf("%s without confirm: %d", tt.action, status)
			}
			for _, want := range tt.asks {
				if !strings.Contains(page, html.EscapeString(want)) {
					t.Errorf("the confirmation of %s does not say %q:\n%s", tt.action, want, page)
				}
			}
			confirm := regexp.MustCompile(`<form method="post" action="/admin/users" id="confirm">[\s\S]*?name="confirm" value="yes"[\s\S]*?</form>`)
			if !confirm.MatchString(page) {
				t.Errorf("the confirmation of %s has no form that confirms:\n%s", tt.action, page)
			}
			if after, err := ts.Users.Get(ctx, "bob"); err != nil || after != before {
				t.Fatalf("%s without confirm changed bob: %+v %v, was %+v", tt.action, after, err, before)
			}
			status, page = pagePost(t, root, ts.URL+"/admin/users", url.Values{"action": {tt.action}, "name": {"bob"}, "confirm": {"yes"}})
			if status != http.StatusOK || !strings.Contains(page, tt.done) {
				t.Fatalf("%s confirmed: %d, want %q\n%s", tt.action, status, tt.done, page)
			}
			if !tt.check(ts.Users.Get(ctx, "bob")) {
				t.Errorf("after %s, bob is not as he should be", tt.action)
			}
		})
	}
}

// TestAdminDelete: an administrator deletes a user, never themselves;
// the user's sessions and keys end with it, its jobs stay in the log.
func TestAdminDelete(t *testing.T) {
	ts := pageServer(t, nil)
	ctx := context.Background()
	root, alice := browserClient(t), browserClient(t)
	signIn(t, root, ts.URL, "root", "root-secret-pw")
	signIn(t, alice, ts.URL, "alice", "alice-secret-pw")
	key, err := ts.Users.NewKey(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	resp := postPage(t, alice, ts.URL+"/convert", []upload{{"files", "note.txt", []byte("hello\n")}}, nil)
	resp.Body.Close()
	job := resp.Header.Get("Location")
	finalProgress(t, alice, ts.URL, job)

	if status, page := pagePost(t, root, ts.URL+"/admin/users", url.Values{"action": {"delete"}, "name": {"root"}, "confirm": {"yes"}}); status != http.StatusBadRequest ||
		!strings.Contains(page, "you cannot delete yourself") {
		t.Errorf("delete yourself: %d, want 400 saying so", status)
	}
	if _, err := ts.Users.Get(ctx, "root"); err != nil {
		t.Fatalf("root was deleted: %v", err)
	}
	if _, page := pageGet(t, root, ts.URL+"/admin/users", nil); strings.Count(page, `value="delete"`) != 2 {
		t.Errorf("the users page offers %d deletes, want 2 (alice and bob, not root)", strings.Count(page, `value="delete"`))
	}
	if status, page := pagePost(t, root, ts.URL+"/admin/users", url.Values{"action": {"delete"}, "name": {"alice"}, "confirm": {"yes"}}); status != http.StatusOK ||
		!strings.Contains(page, "Deleted alice") || strings.Contains(page, `data-user="alice"`) {
		t.Fatalf("delete alice: %d\n%s", status, page)
	}
	if status, _ := pageGet(t, alice, ts.URL+"/history", nil); status != http.StatusSeeOther {
		t.Errorf("a deleted user's session: %d, want 303 to the sign-in", status)
	}
	if resp := get(t, ts.URL+"/jobs", key); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a deleted user's key: %d, want 401", resp.StatusCode)
	}
	if _, page := pageGet(t, root, ts.URL+"/admin/log?user=alice", nil); !strings.Contains(page, "note.txt") {
		t.Errorf("the deleted user's job is not in the log")
	}
	if status, page := pagePost(t, root, ts.URL+"/admin/users", url.Values{"action": {"delete"}, "name": {"alice"}, "confirm": {"yes"}}); status != http.StatusBadRequest ||
		!strings.Contains(page, "no such user") {
		t.Errorf("delete alice again: %d, want 400 no such user", status)
	}
}

// TestAdminNewKey: the administrator makes an API key for a user; the
// page shows it once, to copy, and it works; it is in no log and never
// on a page again.
func TestAdminNewKey(t *testing.T) {
	var logged bytes.Buffer
	ts := pageServer(t, func(o *Options) { o.Log = slog.New(slog.NewTextHandler(&logged, nil)) })
	root := browserClient(t)
	signIn(t, root, ts.URL, "root", "root-secret-pw")
	status, page := pagePost(t, root, ts.URL+"/admin/users", url.Values{"action": {"key"}, "name": {"bob"}})
	key := regexp.MustCompile(`<code id="new-key"[^>]*>(calq_[A-Za-z0-9_-]{43})</code>`).FindStringSubmatch(page)
	if status != http.StatusOK || key == nil || !strings.Contains(page, "shown only this once") {
		t.Fatalf("new key for bob: %d, want the key shown once\n%s", status, page)
	}
	if resp := get(t, ts.URL+"/jobs", key[1]); resp.StatusCode != http.StatusOK {
		t.Errorf("the new key: %d, want 200", resp.StatusCode)
	}
	if _, page := pageGet(t, root, ts.URL+"/admin/users", nil); strings.Contains(page, key[1]) {
		t.Errorf("the users page shows the key again")
	}
	if strings.Contains(logged.String(), key[1]) || !strings.Contains(logged.String(), "action=key") {
		t.Errorf("the log: want the change without the key:\n%s", logged.String())
	}
	if status, page := pagePost(t, root, ts.URL+"/admin/users", url.Values{"action": {"key"}, "name": {"nobody"}}); status != http.StatusBadRequest ||
		!strings.Contains(page, "no such user") {
		t.Errorf("a key for nobody: %d", status)
	}
}
