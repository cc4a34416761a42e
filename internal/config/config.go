// Package config reads calq's TOML configuration file: named conversion
// profiles ([profiles.NAME]), the SMTP server that calq convert --mail-to
// sends through ([smtp]), and the GSM modems of calq sms ([[sms.modem]]).
//
// Load reads and checks a file (a missing default file is an empty
// Config); Config.Profile picks a profile by name; DefaultPath says where
// calq looks for the file. The file names secrets but never holds them:
// ReadSecret reads a password or PIN file, SMTP.Password the SMTP
// password, and a modem's PIN comes from its pin_file or pin_env, read by
// calq sms. SecretEnv lists the variables a file names as holding secrets.
//
// Loading costs one read of at most 1 MiB (a file nested deeper than
// MaxDepth is refused before decoding); a Config is a plain value, safe to
// share once loaded. The package reads no environment variable but
// DefaultPath's: callers pass what they read.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"calq/internal/fsio"
	"calq/internal/homedir"
)

// Config is the whole file.
type Config struct {
	Profiles map[string]Profile `toml:"profiles"`
	SMTP     SMTP               `toml:"smtp"`
	SMS      SMS                `toml:"sms"`
}

// SMS holds calq sms's settings: the modems, [[sms.modem]].
type SMS struct {
	Modems []Modem `toml:"modem"`
}

// Modem is one GSM modem. The PIN comes from a file or an environment
// variable, never from the command line.
type Modem struct {
	Name          string  `toml:"name"`            // defaults to the device's base name
	Device        string  `toml:"device"`          // e.g. /dev/serial/by-id/usb-...; required
	Baud          int     `toml:"baud"`            // 0: 115200
	PINFile       string  `toml:"pin_file"`        // relative to the config file
	PINEnv        string  `toml:"pin_env"`         // e.g. CALQ_SMS_PIN
	RatePerMinute float64 `toml:"rate_per_minute"` // most parts a minute; 0: no limit
}

// Profile is a named set of conversion options, [profiles.NAME]. Zero
// values mean "not set": the command's default applies. Relative paths of
// input files (watermark_image, *_password_file) are relative to the
// config file's directory; Out is left as written. Written back (as
// calq serve's users' profiles are), a profile omits its unset keys.
type Profile struct {
	Watermark      string `toml:"watermark,omitempty"`       // text of a watermark
	WatermarkImage string `toml:"watermark_image,omitempty"` // an image as watermark instead
	WatermarkStyle string `toml:"watermark_style,omitempty"` // pdfcpu's description syntax
	Stamp          bool   `toml:"stamp,omitempty"`           // on top of the page, not under it

	Title    string `toml:"title,omitempty"`
	Author   string `toml:"author,omitempty"`
	Subject  string `toml:"subject,omitempty"`
	Keywords string `toml:"keywords,omitempty"`

	Encrypt           bool   `toml:"encrypt,omitempty"` // AES-256
	OwnerPasswordFile string `toml:"owner_password_file,omitempty"`
	UserPasswordFile  string `toml:"user_password_file,omitempty"`
	Permissions       string `toml:"permissions,omitempty"` // "none", "print" or "all"

	PDFA     int      `toml:"pdfa,omitzero"`      // PDF/A part 1-3; 0 for plain PDF
	Optimize *bool    `toml:"optimize,omitempty"` // nil: the command's default
	MailTo   []string `toml:"mail_to,omitempty"`  // contact names or addresses
	Out      string   `toml:"out,omitempty"`      // output directory

	// How HTML and Markdown files and URLs convert (calq convert's flags
	// of the same names, - for _).
	HTMLEngine        string   `toml:"html_engine,omitempty"` // "chromium", "libreoffice" or "auto"
	Paper             string   `toml:"paper,omitempty"`       // a4, letter, ... or WIDTHxHEIGHT
	Margin            string   `toml:"margin,omitempty"`      // one length or top,right,bottom,left
	Landscape         bool     `toml:"landscape,omitempty"`
	Scale             float64  `toml:"scale,omitzero"`
	PrintBackground   bool     `toml:"print_background,omitempty"`
	HeaderHTML        string   `toml:"header_html,omitempty"` // a file; relative to the config file
	FooterHTML        string   `toml:"footer_html,omitempty"`
	WaitDelay         string   `toml:"wait_delay,omitempty"` // a duration, e.g. 500ms
	WaitForSelector   string   `toml:"wait_for_selector,omitempty"`
	WaitForExpression string   `toml:"wait_for_expression,omitempty"`
	Media             string   `toml:"media,omitempty"` // "print" or "screen"
	UserAgent         string   `toml:"user_agent,omitempty"`
	JavaScript        *bool    `toml:"javascript,omitempty"`     // nil: on
	ChromiumAllow     []string `toml:"chromium_allow,omitempty"` // networks pages may reach
}

// SMTP is the mail server, [smtp]. The password is never in the file:
// PasswordFile names a file holding it, PasswordEnv an environment
// variable (at most one of them).
type SMTP struct {
	Host         string `toml:"host"`
	Port         int    `toml:"port"` // 0: the mail package's default (587)
	Username     string `toml:"username"`
	PasswordFile string `toml:"password_file"`
	PasswordEnv  string `toml:"password_env"`
	From         string `toml:"from"`
	StartTLS     string `toml:"starttls"` // StartTLSMandatory (when empty), StartTLSOpportunistic or StartTLSNone
}

// The values of SMTP.StartTLS.
const (
	StartTLSMandatory     = "mandatory"     // refuse a server without STARTTLS
	StartTLSOpportunistic = "opportunistic" // use STARTTLS when offered, else send in clear
	StartTLSNone          = "none"          // never use STARTTLS
)

// Permissions are the values of Profile.Permissions.
var Permissions = []string{"none", "print", "all"}

// StartTLSPolicies are the values of SMTP.StartTLS.
var StartTLSPolicies = []string{StartTLSMandatory, StartTLSOpportunistic, StartTLSNone}

// DefaultPath is where calq looks for its config file:
// $XDG_CONFIG_HOME/calq/config.toml when that variable is an absolute
// path, as the XDG base directory spec asks, else
// ~/.config/calq/config.toml.
func DefaultPath() (string, error) {
	home, err := homedir.Dir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if err != nil && !filepath.IsAbs(xdg) {
		return "", fmt.Errorf("config file: %w", err)
	}
	return defaultPath(xdg, home), nil
}

func defaultPath(xdgConfigHome, home string) string {
	if filepath.IsAbs(xdgConfigHome) {
		return filepath.Join(xdgConfigHome, "calq", "config.toml")
	}
	return filepath.Join(home, ".config", "calq", "config.toml")
}

// Load reads and checks the config file at path, "" meaning DefaultPath.
// A missing file at DefaultPath (given as "" or in full) is an empty
// Config; a missing file anywhere else, which the user chose, is an
// error. Keys that calq does not know and bad values are errors naming
// them, all at once.
func Load(path string) (Config, error) {
	def, defErr := DefaultPath()
	if path == "" {
		if defErr != nil {
			return Config{}, defErr
		}
		path = def
	}
	data, err := readConfig(path)
	if errors.Is(err, fs.ErrNotExist) && defErr == nil && path == def {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("config file: %w", err)
	}
	return parse(path, string(data))
}

// readConfig reads the config file at path, at most fsio.ConfigLimit
// bytes of a regular file: /dev/zero or a FIFO as CALQ_CONFIG is an
// error, not a hang or a fatal out-of-memory.
func readConfig(path string) ([]byte, error) {
	b, err := fsio.ReadFile(path, fsio.ConfigLimit)
	var tl *fsio.TooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("%w (a config file holds at most %s)", err, fsio.Size(tl.Limit))
	}
	return b, err
}

// parse decodes and checks data, the contents of the file at path.
func parse(path, data string) (Config, error) {
	var c Config
	if err := checkDepth(path, data); err != nil {
		return Config{}, err
	}
	md, err := toml.Decode(data, &c)
	if err != nil {
		return Config{}, decodeError(path, err)
	}
	var errs []error
	if keys := md.Undecoded(); len(keys) > 0 {
		errs = append(errs, unknownKeys(keys))
	}
	errs = append(errs, c.check(md)...)
	if len(errs) > 0 {
		return Config{}, prefixed(path, errs)
	}
	c.resolve(filepath.Dir(path))
	return c, nil
}

// decodeError puts path in front of a syntax or type error, in the
// "file:line:" form of compilers when the line is known.
func decodeError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.Position.Line > 0 {
		return fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
	}
	return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
}

// unknownKeys names the keys, leaving out those inside an unknown table.
func unknownKeys(keys []toml.Key) error {
	var names []string
	var last toml.Key
	for _, k := range keys {
		if last != nil && len(k) > len(last) && slices.Equal(k[:len(last)], last) {
			continue
		}
		last = k
		names = append(names, k.String())
	}
	if len(names) == 1 {
		return fmt.Errorf("unknown key %s", names[0])
	}
	return fmt.Errorf("unknown keys %s", strings.Join(names, ", "))
}

// prefixed puts path before each error, one a line.
func prefixed(path string, errs []error) error {
	for i, err := range errs {
		errs[i] = fmt.Errorf("%s: %w", path, err)
	}
	return errors.Join(errs...)
}

// Profile returns the profile named name, or an error listing the
// profiles the file defines.
func (c Config) Profile(name string) (Profile, error) {
	if p, ok := c.Profiles[name]; ok {
		return p, nil
	}
	names := make([]string, 0, len(c.Profiles))
	for n := range c.Profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return Profile{}, fmt.Errorf("unknown profile %q (the config file defines none)", name)
	}
	return Profile{}, fmt.Errorf("unknown profile %q (defined: %s)", name, strings.Join(names, ", "))
}

// resolve makes the relative paths of input files relative to dir.
func (c *Config) resolve(dir string) {
	abs := func(p *string) {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	for name, p := range c.Profiles {
		abs(&p.WatermarkImage)
		abs(&p.OwnerPasswordFile)
		abs(&p.UserPasswordFile)
		abs(&p.HeaderHTML)
		abs(&p.FooterHTML)
		c.Profiles[name] = p
	}
	abs(&c.SMTP.PasswordFile)
	for i := range c.SMS.Modems {
		abs(&c.SMS.Modems[i].PINFile)
	}
}
