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

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the users",
		Description: "Prints the users sorted by name as a table (NAME, ADMIN, PASSWORD, DISABLED,\n" +
			"SMS, PROFILE, KEYS, CREATED): PASSWORD says whether the user has one, to sign\n" +
			"in to the web pages, SMS whether it may send SMS (calq users show has the\n" +
			`rest). With --json, prints a line per user: {"message_type":"user",` + "\n" +
			`"name","admin","profile","keys","created","password","disabled","sms"}; "keys" is` + "\n" +
			`how many, "password" whether there is one. Keys and passwords are never` + "\n" +
			"printed: calq does not have them. A missing journal is an error, never created.",
		Flags: []cli.Flag{base.JSONFlag(), base.DBFlag()},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return base.Usagef(c, "unexpected argument %q", c.Args().First())
			}
			return withStore(c, func(s *users.Store) error {
				us, err := s.List(c.Context)
				if err != nil {
					return err
				}
				return writeUsers(c.App.Writer, us, c.Bool("json"))
			})
		},
	}
}

func writeUsers(w io.Writer, us []users.User, asJSON bool) error {
	if asJSON {
		return base.WriteJSONLines(w, "user", us)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tADMIN\tPASSWORD\tDISABLED\tSMS\tPROFILE\tKEYS\tCREATED")
	for _, u := range us {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", u.Name, base.YesNo(u.Admin), base.YesNo(u.Password), base.YesNo(u.Disabled), base.YesNo(u.SMS),
			base.SafeText(base.OrDash(u.Profile)), strconv.Itoa(u.Keys), u.Created.Local().Format(time.DateTime))
	}
	return tw.Flush()
}
