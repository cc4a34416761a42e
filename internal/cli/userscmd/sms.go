package userscmd

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/serve/users"
)

// smsFlagNames are the flags of set that change a user's SMS rights.
var smsFlagNames = []string{"sms", "no-sms", "sms-rate", "sms-quota", "sms-number", "sms-inbound-url"}

// smsFlags are set's flags for SMS rights (see users.SMSRights).
func smsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "sms", Usage: "the user may send SMS through calq serve (POST /sms, /cgi-bin/sendsms)"},
		&cli.BoolFlag{Name: "no-sms", Usage: "the user may not send SMS"},
		&cli.IntFlag{Name: "sms-rate", Usage: "at most `N` messages a minute (0: calq serve's default)"},
		&cli.IntFlag{Name: "sms-quota", Usage: "at most `N` messages a day, UTC (0: calq serve's default)"},
		&cli.StringSliceFlag{Name: "sms-number", Usage: "a modem `NAME` or number whose received messages are the user's; repeatable, replaces the list ('' none)"},
		&cli.StringFlag{Name: "sms-inbound-url", Usage: "POST each message received for the user as JSON to `URL` (http or https; '' none)"},
	}
}

// smsChange is what set's SMS flags change.
type smsChange struct {
	allowed, rate, quota, numbers, inbound bool // which are given
	r                                      users.SMSRights
}

// readSMS reads set's SMS flags into a change, checking them.
func readSMS(c *cli.Context) (smsChange, error) {
	var ch smsChange
	if c.Bool("sms") && c.Bool("no-sms") {
		return ch, base.Usagef(c, "--sms and --no-sms exclude each other")
	}
	ch.allowed, ch.r.Allowed = c.IsSet("sms") || c.IsSet("no-sms"), c.Bool("sms") && !c.Bool("no-sms")
	for _, f := range []struct {
		name string
		set  *bool
		into *int
	}{{"sms-rate", &ch.rate, &ch.r.Rate}, {"sms-quota", &ch.quota, &ch.r.Quota}} {
		if *f.set = c.IsSet(f.name); *f.set {
			if *f.into = c.Int(f.name); *f.into < 0 {
				return ch, base.Usagef(c, "--%s %d: want 0 or more", f.name, *f.into)
			}
		}
	}
	if ch.numbers = c.IsSet("sms-number"); ch.numbers {
		for _, n := range c.StringSlice("sms-number") {
			if n = strings.TrimSpace(n); n != "" {
				ch.r.Numbers = append(ch.r.Numbers, n)
			}
		}
	}
	if ch.inbound = c.IsSet("sms-inbound-url"); ch.inbound {
		ch.r.InboundURL = c.String("sms-inbound-url")
		if u, err := url.Parse(ch.r.InboundURL); ch.r.InboundURL != "" && (err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
			return ch, base.Usagef(c, "--sms-inbound-url %q: want an absolute http or https URL", ch.r.InboundURL)
		}
	}
	return ch, nil
}

func (ch smsChange) any() bool { return ch.allowed || ch.rate || ch.quota || ch.numbers || ch.inbound }

// apply changes what ch gives of user name's SMS rights.
func (ch smsChange) apply(ctx context.Context, s *users.Store, name string) error {
	r, err := s.SMSRights(ctx, name)
	if err != nil {
		return err
	}
	if ch.allowed {
		r.Allowed = ch.r.Allowed
	}
	if ch.rate {
		r.Rate = ch.r.Rate
	}
	if ch.quota {
		r.Quota = ch.r.Quota
	}
	if ch.numbers {
		r.Numbers = ch.r.Numbers
	}
	if ch.inbound {
		r.InboundURL = ch.r.InboundURL
	}
	return s.SetSMSRights(ctx, name, r)
}

// describeSMS is a user's SMS rights in words, for show.
func describeSMS(r users.SMSRights) string {
	if !r.Allowed && len(r.Numbers) == 0 && r.InboundURL == "" {
		return "no"
	}
	what := []string{map[bool]string{true: "may send", false: "may not send"}[r.Allowed],
		limit(r.Rate, "a minute", "--sms-rate"), limit(r.Quota, "a day", "--sms-quota")}
	if len(r.Numbers) > 0 {
		what = append(what, "numbers "+strings.Join(r.Numbers, " "))
	}
	if r.InboundURL != "" {
		what = append(what, "inbound "+r.InboundURL)
	}
	return strings.Join(what, ", ")
}

// limit is a rate or a quota; 0 is calq serve's flag's.
func limit(n int, per, flag string) string {
	if n == 0 {
		return "calq serve's " + flag + " " + per
	}
	return fmt.Sprintf("%d %s", n, per)
}
