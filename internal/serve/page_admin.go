package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"calq/internal/serve/jobs"
	"calq/internal/serve/users"
)

type usersView struct {
	Users  []users.User
	Me     string
	NewKey *newKey // a key just made, shown this once
}

// newKey is an API key the administrator just made for User.
type newKey struct{ User, Key string }

func (s *Server) usersPage(w http.ResponseWriter, r *http.Request) {
	s.showUsers(w, r, http.StatusOK, usersDone{}, "")
}

func (s *Server) showUsers(w http.ResponseWriter, r *http.Request, status int, done usersDone, msg string) {
	us, err := s.opts.Accounts.List(r.Context())
	if err != nil && msg == "" {
		status, msg, _ = s.internalError("list the users", err)
	}
	s.render(w, r, status, "users", page{Title: "Users", Nav: "users", Notice: done.notice, Error: msg,
		Data: usersView{Users: us, Me: user(r).Name, NewKey: done.key}})
}

// usersDone is what a change on the users page did.
type usersDone struct {
	notice string
	key    *newKey
}

// userAction is a change the administrator makes to the user name on
// the users page.
type userAction struct {
	// confirm: the change is made only once the form says confirm=yes;
	// before, a page says what it will do.
	confirm bool
	// self, when set, is why an administrator cannot make the change to
	// themselves; changes that take away rights pass users.KeepAdmin too.
	self string
	do   func(ctx context.Context, a Accounts, name string, form url.Values) (usersDone, error)
}

var userActions = map[string]userAction{
	"add":      {do: addAccount},
	"password": {do: resetPassword},
	"key":      {do: makeKey},
	"admin": {do: func(ctx context.Context, a Accounts, name string, _ url.Values) (usersDone, error) {
		return usersDone{notice: name + " is an administrator."}, a.SetAdmin(ctx, name, true)
	}},
	"unadmin": {self: "you cannot take away your own administrator's rights",
		do: func(ctx context.Context, a Accounts, name string, _ url.Values) (usersDone, error) {
			return usersDone{notice: name + " is no longer an administrator."}, a.SetAdmin(ctx, name, false, users.KeepAdmin)
		}},
	"enable": {do: func(ctx context.Context, a Accounts, name string, _ url.Values) (usersDone, error) {
		return usersDone{notice: "User " + name + " is enabled."}, a.SetDisabled(ctx, name, false)
	}},
	"disable": {confirm: true, self: "you cannot disable yourself",
		do: func(ctx context.Context, a Accounts, name string, _ url.Values) (usersDone, error) {
			return usersDone{notice: "User " + name + " is disabled."}, a.SetDisabled(ctx, name, true, users.KeepAdmin)
		}},
	"revoke": {confirm: true, do: func(ctx context.Context, a Accounts, name string, _ url.Values) (usersDone, error) {
		n, err := a.RevokeKeys(ctx, name)
		return usersDone{notice: fmt.Sprintf("Revoked %s of %s.", plural(n, "API key"), name)}, err
	}},
	"delete": {confirm: true, self: "you cannot delete yourself",
		do: func(ctx context.Context, a Accounts, name string, _ url.Values) (usersDone, error) {
			return usersDone{notice: "Deleted " + name + ", its API keys and sessions."}, a.Remove(ctx, name, users.KeepAdmin)
		}},
}

// addAccount adds the form's user, with its password when it has one,
// checked before the user is added.
func addAccount(ctx context.Context, a Accounts, name string, form url.Values) (usersDone, error) {
	password := form.Get("password")
	u := users.User{Name: name, Admin: form.Get("admin") != ""}
	var err error
	if password != "" {
		_, err = a.AddWithPassword(ctx, u, password) // hashed before the user is added
	} else {
		_, err = a.Add(ctx, u)
	}
	return usersDone{notice: "Added " + name + "."}, err
}

func resetPassword(ctx context.Context, a Accounts, name string, form url.Values) (usersDone, error) {
	err := a.SetPassword(ctx, name, form.Get("password"))
	return usersDone{notice: "Set a new password for " + name + "; their sessions ended."}, err
}

// makeKey makes an API key for the user, which the page shows once: it
// is in no log and never on a page again.
func makeKey(ctx context.Context, a Accounts, name string, _ url.Values) (usersDone, error) {
	key, err := a.NewKey(ctx, name)
	if err != nil {
		return usersDone{}, err
	}
	return usersDone{notice: "Made a new API key for " + name + ".", key: &newKey{name, key}}, nil
}

// usersSubmit is the administrator's change to a user: the form's action
// (see userActions) on name. An administrator cannot delete, disable or
// take away the rights of themselves, nor of the last enabled
// administrator, so that someone stays able to manage. Disabling,
// revoking keys and deleting ask first (confirmUser).
func (s *Server) usersSubmit(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		s.showUsers(w, r, http.StatusBadRequest, usersDone{}, err.Error())
		return
	}
	ctx, me, f := r.Context(), user(r).Name, r.PostForm
	name, verb := f.Get("name"), f.Get("action")
	act, ok := userActions[verb]
	var done usersDone
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("unknown action %q", verb)
	case act.self != "" && name == me:
		err = errors.New(act.self)
	case act.confirm && f.Get("confirm") != "yes":
		s.confirmUser(w, r, name, verb)
		return
	default:
		done, err = act.do(ctx, s.opts.Accounts, name, f)
	}
	if errors.Is(err, users.ErrBusy) {
		w.Header().Set("Retry-After", "1")
		s.showUsers(w, r, http.StatusTooManyRequests, usersDone{}, "The server is checking many passwords at once: nothing was changed; try again in a second.")
		return
	}
	if err != nil {
		status, msg := s.refusedChange("change a user", err)
		s.showUsers(w, r, status, usersDone{}, msg)
		return
	}
	s.opts.Log.Info("user changed", "by", me, "user", name, "action", verb)
	s.showUsers(w, r, http.StatusOK, done, "")
}

// confirmUser asks the administrator to confirm an action on the user
// name, saying what it does; the page's form posts it again with
// confirm=yes.
func (s *Server) confirmUser(w http.ResponseWriter, r *http.Request, name, action string) {
	u, err := s.opts.Accounts.Get(r.Context(), name)
	if err != nil {
		status, msg := s.refusedChange("read a user", err)
		s.showUsers(w, r, status, usersDone{}, msg)
		return
	}
	title := map[string]string{"disable": "Disable " + name + "?", "revoke": "Revoke the API keys of " + name + "?",
		"delete": "Delete " + name + "?"}[action]
	s.render(w, r, http.StatusOK, "user_confirm", page{Title: title, Nav: "users", Data: struct {
		User              users.User
		Action            string
		Keep, KeepRecords time.Duration
	}{u, action, s.opts.Keep, s.opts.KeepRecords}})
}

// maxExport is the most jobs one export of the log holds.
const maxExport = 100000

// logPage is every user's jobs, filtered by user, state, dates and text;
// ?format=csv or jsonl exports every job the filter selects.
func (s *Server) logPage(w http.ResponseWriter, r *http.Request) {
	owner := "*"
	if u := r.URL.Query().Get("user"); u != "" {
		owner = u
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		v, err := s.jobList(r, owner)
		v.Admin = true
		p := page{Title: "Log", Nav: "log", Data: v}
		status := http.StatusOK
		if err != nil {
			status, p.Error = s.refusedChange("read the log", err)
		}
		s.render(w, r, status, "history", p)
		return
	}
	if format != "csv" && format != "jsonl" {
		s.problem(w, r, http.StatusBadRequest, fmt.Sprintf("format %q is not csv or jsonl", format))
		return
	}
	_, jq, err := readFilter(r.URL.Query(), owner)
	if err != nil {
		s.problem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	var all []jobs.Job
	for jq.Offset, jq.Limit = 0, 1000; len(all) < maxExport; jq.Offset += jq.Limit {
		pg, err := s.opts.Jobs.Query(r.Context(), jq)
		if err != nil {
			s.internalProblem(w, r, "read the log", err)
			return
		}
		all = append(all, pg.Jobs...)
		if len(pg.Jobs) < jq.Limit {
			break
		}
	}
	name := "calq-log." + format
	w.Header().Set("Content-Disposition", disposition(name))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if format == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		err = jobs.WriteCSV(w, all)
	} else {
		w.Header().Set("Content-Type", "application/jsonl; charset=utf-8")
		err = jobs.WriteJSONL(w, all)
	}
	if err != nil {
		s.opts.Log.Error("export the log", "err", err)
	}
}
