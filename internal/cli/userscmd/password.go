package userscmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"calq/internal/cli/base"
	"calq/internal/config"
	"calq/internal/fsio"
	"calq/internal/serve/users"
)

// passwordFileFlag is --password-file of add and set.
func passwordFileFlag() cli.Flag {
	return &cli.StringFlag{Name: "password-file", Usage: "set the password to the first line of `FILE` ('-': standard input)"}
}

// readPasswordFile reads the password --password-file names: the first
// line of the file, or of standard input for "-", without its line end.
// The password is checked with users.ValidatePassword, and never shown
// in an error.
func readPasswordFile(c *cli.Context) (string, error) {
	file := c.String("password-file")
	var s string
	var err error
	if file == "-" {
		s, err = firstLine(c.App.Reader)
	} else {
		s, err = config.ReadSecret(file)
	}
	if err != nil {
		return "", fmt.Errorf("--password-file: %w", err)
	}
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	if err := users.ValidatePassword(s); err != nil {
		return "", base.Usagef(c, "--password-file %s: %w", file, err)
	}
	return s, nil
}

// firstLine reads r up to its first newline, at most fsio.SecretLimit
// bytes.
func firstLine(r io.Reader) (string, error) {
	s, err := bufio.NewReader(io.LimitReader(r, fsio.SecretLimit)).ReadString('\n')
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if err != nil {
		return "", fmt.Errorf("read standard input: %w", err)
	}
	return s, nil
}

// stdinTerminal returns standard input's file descriptor when it is a
// terminal, where a person can type a password.
func stdinTerminal(c *cli.Context) (int, bool) {
	f, ok := c.App.Reader.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	return int(f.Fd()), true
}

// promptPassword asks on the terminal fd for the new password of the
// user named name, twice, without echo, and returns it once both agree
// and users.ValidatePassword accepts it.
func promptPassword(c *cli.Context, fd int, name string) (string, error) {
	read := func(prompt string) (string, error) {
		fmt.Fprint(c.App.ErrWriter, prompt)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(c.App.ErrWriter)
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		return string(b), nil
	}
	pw, err := read("New password for " + name + ": ")
	if err != nil {
		return "", err
	}
	if err := users.ValidatePassword(pw); err != nil {
		return "", base.Usagef(c, "%w", err)
	}
	again, err := read("The same again: ")
	if err != nil {
		return "", err
	}
	if again != pw {
		return "", base.Usagef(c, "the two passwords typed differ")
	}
	return pw, nil
}

// noPasswordHint tells, on stderr, how to give the user named name a
// password.
func noPasswordHint(c *cli.Context, name string) error {
	_, err := fmt.Fprintf(c.App.ErrWriter, "calq: hint: user %s has no password and cannot sign in to the web pages: "+
		"set one with 'calq users set %s --password' or --password-file FILE\n", name, name)
	return err
}
