package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	no := false
	tests := []struct {
		name, toml string
		want       Config
	}{
		{"empty", "", Config{}},
		{"comments only", "# nothing yet\n", Config{}},
		{"profile", `
[profiles.confidential]
watermark = "CONFIDENTIAL"
watermark_style = "font:Helvetica, points:48, rot:45, op:.3"
stamp = true
title = "Quarterly report"
author = "Finance"
subject = "Q3"
keywords = "finance, q3"
encrypt = true
owner_password_file = "/etc/calq/owner"
user_password_file = "user.pw"
permissions = "print"
pdfa = 2
optimize = false
mail_to = ["boss", "audit@example.com"]
out = "out/pdf"
`, Config{Profiles: map[string]Profile{"confidential": {
			Watermark: "CONFIDENTIAL", WatermarkStyle: "font:Helvetica, points:48, rot:45, op:.3", Stamp: true,
			Title: "Quarterly report", Author: "Finance", Subject: "Q3", Keywords: "finance, q3",
			Encrypt: true, OwnerPasswordFile: "/etc/calq/owner", UserPasswordFile: "user.pw", Permissions: "print",
			PDFA: 2, Optimize: &no, MailTo: []string{"boss", "audit@example.com"}, Out: "out/pdf"}}}},
		{"image watermark", "[profiles.logo]\nwatermark_image = \"/srv/logo.png\"\n",
			Config{Profiles: map[string]Profile{"logo": {WatermarkImage: "/srv/logo.png"}}}},
		{"smtp", `
[smtp]
host = "smtp.example.com"
port = 465
username = "calq"
password_env = "CALQ_SMTP_PASSWORD"
from = "Calq <calq@example.com>"
starttls = "opportunistic"
`, Config{SMTP: SMTP{Host: "smtp.example.com", Port: 465, Username: "calq", PasswordEnv: "CALQ_SMTP_PASSWORD",
			From: "Calq <calq@example.com>", StartTLS: "opportunistic"}}},
		{"password file", "[smtp]\nusername = \"u\"\npassword_file = \"/run/pw\"\n",
			Config{SMTP: SMTP{Username: "u", PasswordFile: "/run/pw"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse("config.toml", tt.toml)
			if err != nil {
				t.Fatalf("parse() error = %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parse() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, toml, want string
	}{
		{"unknown profile key", "[profiles.x]\nwatermrk = \"a\"\n", "config.toml: unknown key profiles.x.watermrk"},
		{"unknown keys", "[profiles.x]\nwatermrk = \"a\"\npdf_a = 1\n",
			"config.toml: unknown keys profiles.x.watermrk, profiles.x.pdf_a"},
		{"unknown table", "[smpt]\nhost = \"a\"\n", "config.toml: unknown key smpt"},
		{"unknown top-level key", "profile = \"x\"\n", "config.toml: unknown key profile"},
		{"quoted profile name", "[profiles.\"a b\"]\nmailto = []\n", `config.toml: unknown key profiles."a b".mailto`},
		{"pdfa too high", "[profiles.x]\npdfa = 4\n", "config.toml: profiles.x.pdfa: 4 is not a PDF/A part (0, 1, 2 or 3)"},
		{"pdfa negative", "[profiles.x]\npdfa = -1\n", "config.toml: profiles.x.pdfa: -1 is not a PDF/A part (0, 1, 2 or 3)"},
		{"permissions", "[profiles.x]\npermissions = \"some\"\n",
			`config.toml: profiles.x.permissions: "some" is not one of none, print, all`},
		{"both watermarks", "[profiles.x]\nwatermark = \"a\"\nwatermark_image = \"b.png\"\n",
			"config.toml: profiles.x: watermark and watermark_image exclude each other"},
		{"empty recipient", "[profiles.x]\nmail_to = [\"boss\", \" \"]\n",
			"config.toml: profiles.x.mail_to: entry 2: empty recipient"},
		{"bad address", "[profiles.x]\nmail_to = [\"a@\"]\n",
			`config.toml: profiles.x.mail_to: entry 1: "a@" is not an email address: mail: missing '@' or angle-addr`},
		{"port zero", "[smtp]\nport = 0\n", "config.toml: smtp.port: 0 is not a port (1-65535)"},
		{"port too high", "[smtp]\nport = 65536\n", "config.toml: smtp.port: 65536 is not a port (1-65535)"},
		{"starttls", "[smtp]\nstarttls = \"always\"\n",
			`config.toml: smtp.starttls: "always" is not one of mandatory, opportunistic, none`},
		{"from", "[smtp]\nfrom = \"calq\"\n", `config.toml: smtp.from: "calq" is not an email address: mail: missing '@' or angle-addr`},
		{"two passwords", "[smtp]\nusername = \"u\"\npassword_file = \"f\"\npassword_env = \"E\"\n",
			"config.toml: smtp: password_file and password_env exclude each other"},
		{"password without username", "[smtp]\npassword_env = \"E\"\n", "config.toml: smtp: a password is set but no username"},
		{"all at once", "x = 1\n[profiles.b]\npdfa = 9\n[profiles.a]\npermissions = \"?\"\n[smtp]\nport = -2\n",
			"config.toml: unknown key x\n" +
				`config.toml: profiles.a.permissions: "?" is not one of none, print, all` + "\n" +
				"config.toml: profiles.b.pdfa: 9 is not a PDF/A part (0, 1, 2 or 3)\n" +
				"config.toml: smtp.port: -2 is not a port (1-65535)"},
		{"wrong type", "[profiles.x]\npdfa = \"two\"\n", `config.toml: line 2 (last key "profiles.x.pdfa"): ` +
			"incompatible types: TOML value has type string; destination has type integer"},
		{"modem name with a NUL", "[[sms.modem]]\ndevice = \"/dev/ttyUSB0\"\nname = \"gsm\\u0000\"\n",
			`config.toml: sms.modem.1: name "gsm\x00": holds a NUL (U+0000), which a name stored as text cannot`},
		{"syntax", "[smtp]\nport =\n", `config.toml:2: expected value but found '\n' instead`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("config.toml", tt.toml)
			if got := errString(err); got != tt.want {
				t.Errorf("parse() error = %q\nwant %q", got, tt.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestDefaultPath(t *testing.T) {
	tests := []struct {
		name, xdg, home, want string
	}{
		{"xdg", "/cfg", "/home/u", "/cfg/calq/config.toml"},
		{"no xdg", "", "/home/u", "/home/u/.config/calq/config.toml"},
		{"relative xdg ignored", "cfg", "/home/u", "/home/u/.config/calq/config.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := defaultPath(tt.xdg, tt.home); got != tt.want {
				t.Errorf("defaultPath(%q, %q) = %q, want %q", tt.xdg, tt.home, got, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	for _, arg := range []string{"", filepath.Join(dir, "calq", "config.toml")} {
		t.Run("missing default file "+arg, func(t *testing.T) {
			c, err := Load(arg)
			if err != nil || !reflect.DeepEqual(c, Config{}) {
				t.Errorf("Load(%q) = %+v, %v, want an empty Config and no error", arg, c, err)
			}
		})
	}
	t.Run("missing explicit file", func(t *testing.T) {
		path := filepath.Join(dir, "nope.toml")
		_, err := Load(path)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(errString(err), path) {
			t.Errorf("Load(%q) error = %v, want one naming the file and wrapping fs.ErrNotExist", path, err)
		}
	})
	path := filepath.Join(dir, "calq", "config.toml")
	must(t, os.MkdirAll(filepath.Dir(path), 0o700))
	must(t, os.WriteFile(path, []byte("[profiles.p]\nwatermark_image = \"logo.png\"\nuser_password_file = \"/abs/pw\"\n"+
		"out = \"pdf\"\n[smtp]\nusername = \"u\"\npassword_file = \"secrets/smtp\"\n"), 0o600))
	want := Config{
		Profiles: map[string]Profile{"p": {WatermarkImage: filepath.Join(dir, "calq", "logo.png"),
			UserPasswordFile: "/abs/pw", Out: "pdf"}},
		SMTP: SMTP{Username: "u", PasswordFile: filepath.Join(dir, "calq", "secrets", "smtp")},
	}
	for _, arg := range []string{"", path} {
		t.Run("file "+arg, func(t *testing.T) {
			c, err := Load(arg)
			if err != nil || !reflect.DeepEqual(c, want) {
				t.Errorf("Load(%q) = %+v, %v, want %+v", arg, c, err, want)
			}
		})
	}
	t.Run("error names the file", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.toml")
		must(t, os.WriteFile(bad, []byte("[profiles.x]\nwatermrk = 1\n"), 0o600))
		_, err := Load(bad)
		if want := bad + ": unknown key profiles.x.watermrk"; errString(err) != want {
			t.Errorf("Load() error = %v, want %q", err, want)
		}
	})
}

func TestProfile(t *testing.T) {
	c := Config{Profiles: map[string]Profile{"b": {Title: "B"}, "a": {}}}
	if p, err := c.Profile("b"); err != nil || p.Title != "B" {
		t.Errorf(`Profile("b") = %+v, %v, want the profile`, p, err)
	}
	if _, err := c.Profile("c"); errString(err) != `unknown profile "c" (defined: a, b)` {
		t.Errorf(`Profile("c") error = %v`, err)
	}
	if _, err := (Config{}).Profile("c"); errString(err) != `unknown profile "c" (the config file defines none)` {
		t.Errorf(`empty Profile("c") error = %v`, err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzParse checks that parse never panics and that what it accepts
// holds only valid values.
func FuzzParse(f *testing.F) {
	f.Add("[profiles.x]\npdfa = 2\npermissions = \"all\"\n[smtp]\nport = 25\nstarttls = \"none\"\n")
	f.Add("[profiles.\"\"]\nmail_to = [\"a@b\"]\n")
	f.Add("x = [1, {a = 2}]")
	f.Fuzz(func(t *testing.T, data string) {
		c, err := parse("config.toml", data)
		if err != nil {
			return
		}
		for name, p := range c.Profiles {
			if p.PDFA < 0 || p.PDFA > 3 {
				t.Errorf("profile %q: accepted pdfa %d", name, p.PDFA)
			}
		}
		if c.SMTP.Port < 0 || c.SMTP.Port > 65535 {
			t.Errorf("accepted port %d", c.SMTP.Port)
		}
	})
}
