package userscmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/users"
)

func setCommand() *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "change a user's admin flag, profile or password, or disable it",
		ArgsUsage: "NAME",
		Description: "Changes what the flags given say of the user NAME: --admin or --admin=false,\n" +
			"--profile P, or --profile '' for none. --password asks for a new password on\n" +
			"the terminal, twice, without echo; --password-file FILE reads it from the\n" +
			"first line of FILE ('-' standard input). A new password signs the user out of\n" +
			"the web pages everywhere. --disable keeps the user from signing in and from\n" +
			"using its API keys, and signs it out; --enable lets it in again. Its keys,\n" +
			"password and jobs stay. --sms lets the user send SMS through calq serve\n" +
			"(--no-sms: not), --sms-rate N and --sms-quota N bound it to N messages a\n" +
			"minute and a day (UTC; 0: calq serve's --sms-rate and --sms-quota),\n" +
			"--sms-number (repeatable) names the modems, by name or number, whose received\n" +
			"messages are the user's (GET /sms/inbox), and --sms-inbound-url URL receives\n" +
			"each of them as a JSON POST. An unknown NAME is an error. A missing journal is\n" +
			"an error, never created.",
		Flags: append(append(userFlags(), passwordFileFlag(),
			&cli.BoolFlag{Name: "password", Usage: "ask for a new password on the terminal"},
			&cli.BoolFlag{Name: "disable", Usage: "disable the user: no sign-in, no API key works"},
			&cli.BoolFlag{Name: "enable", Usage: "enable a disabled user"},
		), smsFlags()...),
		Action: func(c *cli.Context) error {
			name, err := nameArg(c)
			if err != nil {
				return err
			}
			if err := checkSetFlags(c); err != nil {
				return err
			}
			profile, err := checkProfile(c)
			if err != nil {
				return err
			}
			sms, err := readSMS(c)
			if err != nil {
				return err
			}
			pw, err := setPassword(c, name)
			if err != nil {
				return err
			}
			return withStore(c, func(s *users.Store) error {
				u, err := setUser(c, s, name, profile, pw, sms)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(c.App.Writer, "user %s%s\n", u.Name, describe(u))
				return err
			})
		},
	}
}

// checkSetFlags refuses a set with nothing to change, or with flags that
// contradict each other.
func checkSetFlags(c *cli.Context) error {
	switch {
	case !anySet(c, append([]string{"admin", "profile", "password", "password-file", "disable", "enable"}, smsFlagNames...)...):
		return base.Usagef(c, "nothing to change: give --admin, --profile, --password, --password-file, --disable, --enable or an --sms flag")
	case c.Bool("password") && c.IsSet("password-file"):
		return base.Usagef(c, "--password and --password-file exclude each other")
	case c.Bool("disable") && c.Bool("enable"):
		return base.Usagef(c, "--disable and --enable exclude each other")
	}
	return nil
}

func anySet(c *cli.Context, flags ...string) bool {
	for _, f := range flags {
		if c.IsSet(f) {
			return true
		}
	}
	return false
}

// setPassword returns the new password that --password or
// --password-file give the user named name; "" none.
func setPassword(c *cli.Context, name string) (string, error) {
	switch {
	case c.IsSet("password-file"):
		return readPasswordFile(c)
	case c.Bool("password"):
		fd, ok := stdinTerminal(c)
		if !ok {
			return "", base.Usagef(c, "--password asks on a terminal, and standard input is none: give --password-file FILE ('-' standard input)")
		}
		return promptPassword(c, fd, name)
	}
	return "", nil
}

// setUser applies the flags given, the new password pw ("" none) and the
// SMS rights' change to the user named name and returns it.
func setUser(c *cli.Context, s *users.Store, name, profile, pw string, sms smsChange) (users.User, error) {
	var steps []func() error
	if c.IsSet("admin") {
		steps = append(steps, func() error { return s.SetAdmin(c.Context, name, c.Bool("admin")) })
	}
	if c.IsSet("profile") {
		steps = append(steps, func() error { return s.SetProfile(c.Context, name, profile) })
	}
	if pw != "" {
		steps = append(steps, func() error { return s.SetPassword(c.Context, name, pw) })
	}
	if c.Bool("disable") || c.Bool("enable") {
		steps = append(steps, func() error { return s.SetDisabled(c.Context, name, c.Bool("disable")) })
	}
	if sms.any() {
		steps = append(steps, func() error { return sms.apply(c.Context, s, name) })
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return users.User{}, err
		}
	}
	return s.Get(c.Context, name)
}
