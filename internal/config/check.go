package config

import (
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// check returns an error for each bad value, naming its key; md tells a
// value set to zero from one left out.
func (c *Config) check(md toml.MetaData) []error {
	var errs []error
	bad := func(key toml.Key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	names := make([]string, 0, len(c.Profiles))
	for n := range c.Profiles {
		names = append(names, n)
	}
	slices.Sort(names) // errors in a stable order
	for _, n := range names {
		c.Profiles[n].check(toml.Key{"profiles", n}, bad)
	}
	c.SMTP.check(md, bad)
	c.SMS.check(bad)
	return errs
}

func (s SMS) check(bad badFunc) {
	seen := map[string]bool{}
	for i, m := range s.Modems {
		key := toml.Key{"sms", "modem", fmt.Sprint(i + 1)}
		switch {
		case m.Device == "":
			bad(key, "device: required")
		case m.Baud < 0:
			bad(key, "baud: %d is negative", m.Baud)
		case m.RatePerMinute < 0:
			bad(key, "rate_per_minute: %v is negative", m.RatePerMinute)
		case m.PINFile != "" && m.PINEnv != "":
			bad(key, "pin_file and pin_env: give one")
		}
		name := m.Name
		if name == "" {
			name = m.Device
		}
		if strings.IndexByte(name, 0) >= 0 {
			// TOML can write one (\u0000); PostgreSQL's text cannot hold it.
			bad(key, "name %q: holds a NUL (U+0000), which a name stored as text cannot", name)
		}
		if seen[name] {
			bad(key, "name %q: used by another modem", name)
		}
		seen[name] = true
	}
}

type badFunc func(key toml.Key, format string, args ...any)

// Check checks p as the file's [profiles.NAME] would be checked when
// loaded: an error for each bad value, naming its key, joined; nil when
// p is fine.
func (p Profile) Check(name string) error {
	var errs []error
	p.check(toml.Key{"profiles", name}, func(key toml.Key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	})
	return errors.Join(errs...)
}

func (p Profile) check(key toml.Key, bad badFunc) {
	if p.PDFA < 0 || p.PDFA > 3 {
		bad(append(key, "pdfa"), "%d is not a PDF/A part (0, 1, 2 or 3)", p.PDFA)
	}
	if p.Permissions != "" && !slices.Contains(Permissions, p.Permissions) {
		bad(append(key, "permissions"), "%q is not one of %s", p.Permissions, strings.Join(Permissions, ", "))
	}
	if p.Watermark != "" && p.WatermarkImage != "" {
		bad(key, "watermark and watermark_image exclude each other")
	}
	for i, r := range p.MailTo {
		if err := checkRecipient(r); err != nil {
			bad(append(key, "mail_to"), "entry %d: %v", i+1, err)
		}
	}
}

// checkRecipient accepts a contact name, or an address when r contains
// an '@'; contact names are checked when they are resolved.
func checkRecipient(r string) error {
	if strings.TrimSpace(r) == "" {
		return fmt.Errorf("empty recipient")
	}
	if strings.Contains(r, "@") {
		if _, err := mail.ParseAddress(r); err != nil {
			return fmt.Errorf("%q is not an email address: %v", r, err)
		}
	}
	return nil
}

func (s SMTP) check(md toml.MetaData, bad badFunc) {
	key := toml.Key{"smtp"}
	if md.IsDefined("smtp", "port") && (s.Port < 1 || s.Port > 65535) {
		bad(append(key, "port"), "%d is not a port (1-65535)", s.Port)
	}
	if s.StartTLS != "" && !slices.Contains(StartTLSPolicies, s.StartTLS) {
		bad(append(key, "starttls"), "%q is not one of %s", s.StartTLS, strings.Join(StartTLSPolicies, ", "))
	}
	if s.From != "" {
		if _, err := mail.ParseAddress(s.From); err != nil {
			bad(append(key, "from"), "%q is not an email address: %v", s.From, err)
		}
	}
	if s.PasswordFile != "" && s.PasswordEnv != "" {
		bad(key, "password_file and password_env exclude each other")
	}
	if (s.PasswordFile != "" || s.PasswordEnv != "") && s.Username == "" {
		bad(key, "a password is set but no username")
	}
}
