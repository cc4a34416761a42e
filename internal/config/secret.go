package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"calq/internal/fsio"
)

// ReadSecret reads a password from the file at path: its whole contents
// but one trailing newline ("\n" or "\r\n"), so that both
// `echo pw > file` and an editor's file work.
//
// It reads at most fsio.SecretLimit (4 KiB) of a regular file: /dev/zero,
// a FIFO or a directory is an error naming the file.
func ReadSecret(path string) (string, error) {
	b, err := fsio.ReadFile(path, fsio.SecretLimit)
	var tl *fsio.TooLargeError
	if errors.As(err, &tl) {
		err = fmt.Errorf("%w (a secret file holds at most %s)", err, fsio.Size(tl.Limit))
	}
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

// SecretEnv returns the environment variables that the config file at
// path names as holding a secret: the value of every key ending in _env
// (smtp.password_env, a modem's pin_env). It reads the file as loosely as
// it can, so that a file Load refuses (an unknown key, a bad value) still
// names them; a file that is missing or not TOML names none. Commands
// that start children hide these names from them (internal/childenv).
func SecretEnv(path string) []string {
	var doc map[string]any
	data, err := readConfig(path)
	if err != nil || checkDepth(path, string(data)) != nil {
		return nil
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil
	}
	var names []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && strings.HasSuffix(k, "_env") && s != "" {
					names = append(names, s)
				}
				walk(e)
			}
		case []map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	slices.Sort(names)
	return slices.Compact(names)
}
