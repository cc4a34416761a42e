package emu

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// ReadInbox reads hex PDUs for Options.Inbox, one per line; blank lines
// and lines starting with # are skipped. It checks that each is hex with
// a plausible SMSC field, naming the line of the first that is not.
func ReadInbox(r io.Reader) ([]string, error) {
	var pdus []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if _, err := validPDU(line); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		pdus = append(pdus, strings.ToUpper(line))
	}
	return pdus, sc.Err()
}
