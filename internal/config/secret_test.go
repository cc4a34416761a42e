package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestReadSecret(t *testing.T) {
	tests := []struct {
		name, contents, want string
	}{
		{"newline", "s3cret\n", "s3cret"},
		{"crlf", "s3cret\r\n", "s3cret"},
		{"no newline", "s3cret", "s3cret"},
		{"only one newline trimmed", "s3cret\n\n", "s3cret\n"},
		{"spaces kept", " s3 cret \n", " s3 cret "},
		{"empty", "", ""},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			must(t, os.WriteFile(path, []byte(tt.contents), 0o600))
			got, err := ReadSecret(path)
			if err != nil || got != tt.want {
				t.Errorf("ReadSecret() = %q, %v, want %q", got, err, tt.want)
			}
		})
	}
	if _, err := ReadSecret(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadSecret(missing) error = %v, want fs.ErrNotExist", err)
	}
}

func TestPassword(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	must(t, os.WriteFile(file, []byte("from-file\n"), 0o600))
	env := map[string]string{"PW": "from-env"}
	tests := []struct {
		name      string
		s         SMTP
		want, err string
	}{
		{"none", SMTP{}, "", ""},
		{"file", SMTP{PasswordFile: file}, "from-file", ""},
		{"env", SMTP{PasswordEnv: "PW"}, "from-env", ""},
		{"env unset", SMTP{PasswordEnv: "NOPE"}, "", "smtp.password_env: $NOPE is not set"},
		{"file missing", SMTP{PasswordFile: file + "x"}, "",
			"smtp.password_file: read secret: open " + file + "x: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.s.Password(func(k string) string { return env[k] })
			if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
				t.Errorf("Password() = %q, %v, want %q, %q", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestSecretEnv(t *testing.T) {
	tests := []struct {
		name, contents string
		want           []string
	}{
		{"smtp and modems", `
[smtp]
host = "mail"
password_env = "MAIL_PW"
[[sms.modem]]
device = "/dev/ttyUSB0"
pin_env = "GSM1_PIN"
[[sms.modem]]
device = "/dev/ttyUSB1"
pin_env = "GSM2_PIN"
`, []string{"GSM1_PIN", "GSM2_PIN", "MAIL_PW"}},
		{"a file Load refuses still names them", `
[smtp]
password_env = "MAIL_PW"
bogus = 1
[[sms.modem]]
pin_env = "GSM1_PIN"
`, []string{"GSM1_PIN", "MAIL_PW"}},
		{"none", "[profiles.a]\nwatermark = \"x\"\n", nil},
		{"not TOML", "pin_env = ", nil},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".toml")
			must(t, os.WriteFile(path, []byte(tt.contents), 0o600))
			if got := SecretEnv(path); !slices.Equal(got, tt.want) {
				t.Errorf("SecretEnv() = %q, want %q", got, tt.want)
			}
		})
	}
	if got := SecretEnv(filepath.Join(dir, "missing.toml")); got != nil {
		t.Errorf("SecretEnv(missing) = %q, want none", got)
	}
}
