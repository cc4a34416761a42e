package userscmd

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/users"
)

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a user, with its SMS rights",
		ArgsUsage: "NAME",
		Description: "Prints what calq users list prints of the user NAME, one field a line, and\n" +
			"its SMS rights: whether it may send, its rate and daily quota (0: calq serve's\n" +
			"defaults), the modems whose received messages are its, and its inbound URL.\n" +
			`With --json, prints one line: the list's fields and "sms_rights":{"allowed",` + "\n" +
			`"rate","quota","numbers","inbound_url"}. An unknown NAME is an error.`,
		Flags: []cli.Flag{base.JSONFlag(), base.DBFlag()},
		Action: func(c *cli.Context) error {
			name, err := nameArg(c)
			if err != nil {
				return err
			}
			return withStore(c, func(s *users.Store) error {
				u, err := s.Get(c.Context, name)
				if err != nil {
					return err
				}
				r, err := s.SMSRights(c.Context, name)
				if err != nil {
					return err
				}
				return writeUser(c.App.Writer, u, r, c.Bool("json"))
			})
		},
	}
}

// shownUser is show's JSON line.
type shownUser struct {
	users.User
	SMSRights users.SMSRights `json:"sms_rights"`
}

func writeUser(w io.Writer, u users.User, r users.SMSRights, asJSON bool) error {
	if asJSON {
		if r.Numbers == nil {
			r.Numbers = []string{}
		}
		return base.WriteJSONLines(w, "user", []shownUser{{u, r}})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range [][2]string{
		{"name", u.Name}, {"admin", base.YesNo(u.Admin)}, {"password", base.YesNo(u.Password)},
		{"disabled", base.YesNo(u.Disabled)}, {"profile", base.OrDash(u.Profile)}, {"keys", strconv.Itoa(u.Keys)},
		{"created", u.Created.Local().Format(time.DateTime)}, {"sms", describeSMS(r)},
	} {
		fmt.Fprintf(tw, "%s:\t%s\n", row[0], base.SafeText(row[1]))
	}
	return tw.Flush()
}
