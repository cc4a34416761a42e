package pdf

import (
	"errors"
	"fmt"

	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
)

// pdfcpu prepares AES-256 passwords with this PRECIS profile when it checks
// them, but not when it encrypts (pdfcpu v0.15.0): it rejects spaces and
// control characters and applies NFKC. calq prepares passwords the same way
// before encrypting, so that what it writes can be opened again by pdfcpu
// and, for the passwords it accepts, by any reader following ISO 32000-2.
var passwordProfile = precis.NewIdentifier(precis.BidiRule, precis.Norm(norm.NFKC))

// maxPasswordBytes is the length AES-256 readers truncate passwords to.
const maxPasswordBytes = 127

var errPassword = errors.New("a password may not contain spaces or control characters: PDF readers could not open the file with it")

// preparePassword returns pw as pdfcpu will compare it on reading.
func preparePassword(pw string) (string, error) {
	if pw == "" {
		return "", nil
	}
	p, err := passwordProfile.String(pw)
	if err != nil {
		return "", errPassword
	}
	if len(p) > maxPasswordBytes {
		return "", fmt.Errorf("passwords may be at most %d bytes long", maxPasswordBytes)
	}
	return p, nil
}

// unusablePassword reports whether pdfcpu fails on pw before comparing it
// with an AES-256 PDF's, which for the caller means a wrong password.
func unusablePassword(pw string) bool {
	_, err := preparePassword(pw)
	return err != nil
}
