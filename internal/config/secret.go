package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ReadSecret reads a password from the file at path: its whole contents
// but one trailing newline ("\n" or "\r\n"), so that both
// `echo pw > file` and an editor's file work.
func ReadSecret(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read secret: %w", err)
	}
	s := string(b)
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		s = strings.TrimSuffix(t, "\r")
	}
	return s, nil
}

// Password returns the SMTP password: the contents of PasswordFile (see
// ReadSecret), or the value getenv returns for PasswordEnv, or "" when
// neither is set. Callers pass os.Getenv; a named but empty variable is
// an error.
func (s SMTP) Password(getenv func(string) string) (string, error) {
	switch {
	case s.PasswordFile != "":
		pw, err := ReadSecret(s.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("smtp.password_file: %w", err)
		}
		return pw, nil
	case s.PasswordEnv != "":
		if pw := getenv(s.PasswordEnv); pw != "" {
			return pw, nil
		}
		return "", errors.New("smtp.password_env: $" + s.PasswordEnv + " is not set")
	}
	return "", nil
}
