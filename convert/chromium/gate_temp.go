package chromium

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// gate is a stand-in for the policy (branch chrpolicy): it binds file://
// URLs to the conversion's directory and lets everything else through.
// Deleted when chrpolicy is merged.
type gate struct{}

func newGate(p Policy) (*gate, error) { return &gate{}, nil }

func (g *gate) allowURL(raw, dir string) error {
	if !strings.HasPrefix(strings.ToLower(raw), "file:") {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrRefused, raw, err)
	}
	if dir == "" {
		return fmt.Errorf("%w: %s: no file may be read", ErrRefused, raw)
	}
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(u.Path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || u.Host != "" {
		return fmt.Errorf("%w: %s: outside the conversion's directory", ErrRefused, raw)
	}
	return nil
}

func (g *gate) browserArgs(ctx context.Context) ([]string, error) { return nil, nil }

func (g *gate) close() error { return nil }
