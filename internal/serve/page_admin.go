package serve

import (
	"errors"
	"fmt"
	"net/http"

	"calq/internal/serve/jobs"
	"calq/internal/serve/users"
)

type usersView struct {
	Users []users.User
	Me    string
}

func (s *Server) usersPage(w http.ResponseWriter, r *http.Request) {
	s.showUsers(w, r, http.StatusOK, "", "")
}

func (s *Server) showUsers(w http.ResponseWriter, r *http.Request, status int, notice, msg string) {
	us, err := s.opts.Accounts.List(r.Context())
	if err != nil && msg == "" {
		msg, status = err.Error(), http.StatusInternalServerError
	}
	s.render(w, r, status, "users", page{Title: "Users", Nav: "users", Notice: notice, Error: msg,
		Data: usersView{Users: us, Me: user(r).Name}})
}

// usersSubmit is the administrator's change to a user: the form's
// action (add, admin, unadmin, disable, enable, password, revoke) on
// name. An administrator cannot take away their own rights or disable
// themselves, so that someone stays able to manage.
func (s *Server) usersSubmit(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		s.showUsers(w, r, http.StatusBadRequest, "", err.Error())
		return
	}
	ctx, me := r.Context(), user(r).Name
	name, action, password := r.PostForm.Get("name"), r.PostForm.Get("action"), r.PostForm.Get("password")
	var err error
	var notice string
	switch action {
	case "add":
		u := users.User{Name: name, Admin: r.PostForm.Get("admin") != ""}
		if password != "" {
			_, err = s.opts.Accounts.AddWithPassword(ctx, u, password)
		} else {
			_, err = s.opts.Accounts.Add(ctx, u)
		}
		notice = "Added " + name + "."
	case "admin", "unadmin":
		if name == me && action == "unadmin" {
			err = errors.New("you cannot take away your own administrator's rights")
			break
		}
		err = s.opts.Accounts.SetAdmin(ctx, name, action == "admin")
		notice = "Changed " + name + "'s rights."
	case "disable", "enable":
		if name == me && action == "disable" {
			err = errors.New("you cannot disable yourself")
			break
		}
		err = s.opts.Accounts.SetDisabled(ctx, name, action == "disable")
		notice = "User " + name + " is " + action + "d."
	case "password":
		err = s.opts.Accounts.SetPassword(ctx, name, password)
		notice = "Set a new password for " + name + "; their sessions ended."
	case "revoke":
		var n int
		n, err = s.opts.Accounts.RevokeKeys(ctx, name)
		notice = fmt.Sprintf("Revoked %d API keys of %s.", n, name)
	default:
		err = fmt.Errorf("unknown action %q", action)
	}
	if errors.Is(err, users.ErrBusy) {
		w.Header().Set("Retry-After", "1")
		s.showUsers(w, r, http.StatusTooManyRequests, "", "The server is checking many passwords at once: nothing was changed; try again in a second.")
		return
	}
	if err != nil {
		s.showUsers(w, r, http.StatusBadRequest, "", err.Error())
		return
	}
	s.opts.Log.Info("user changed", "by", me, "user", name, "action", action)
	s.showUsers(w, r, http.StatusOK, notice, "")
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
			p.Error, status = err.Error(), http.StatusBadRequest
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
			s.problem(w, r, http.StatusInternalServerError, err.Error())
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
