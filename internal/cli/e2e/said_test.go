package e2e

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// saying keeps all a child wrote to stderr and closes said once a line
// of it starts with prefix: a test acts when calq says it is where the
// test wants it, never after a guessed time or on a guess from /proc
// (a Go program catches SIGINT and SIGTERM from its first instruction,
// long before calq has asked for them).
type saying struct {
	lockedBuilder
	prefix string
	said   chan struct{}
	once   sync.Once
}

func (s *saying) Write(p []byte) (int, error) {
	n, err := s.lockedBuilder.Write(p)
	if text := s.String(); strings.HasPrefix(text, s.prefix) || strings.Contains(text, "\n"+s.prefix) {
		s.once.Do(func() { close(s.said) })
	}
	return n, err
}

// saidLine makes cmd's stderr a saying that waits for a line starting
// with prefix.
func saidLine(t *testing.T, cmd *exec.Cmd, prefix string) *saying {
	t.Helper()
	s := &saying{prefix: prefix, said: make(chan struct{})}
	cmd.Stderr = s
	return s
}
